import Ajv from "ajv";
import { validate as lintDockerfile } from "dockerfile-utils";
import { parse as parseYaml } from "yaml";
import { isRegionId } from "@vigil/domain";
import { AGENT_SETTING_NAMES, loadConfig as loadAgentConfig } from "../../agent/src/config";
import { CONTROL_PLANE_SETTING_NAMES, loadConfig } from "../src/config";
import { queueDepth } from "../src/metrics/definitions";
import composeSpec from "./support/deploy/compose-spec.json";
import { dockerStages, exists, overlayNames, readManifests, readText, readYaml, type Manifest } from "./support/deploy/files";

/**
 * The deployment files, checked without a container engine or a cluster:
 * they parse and match their schemas, set only settings the apps read, and
 * agree with each other and with the apps on image names, ports and probes.
 */

const stages = dockerStages();
const defaults = {
  "control-plane": { port: loadConfig({}).port, settings: CONTROL_PLANE_SETTING_NAMES },
  agent: { port: loadAgentConfig({ REGION: "hostA-ams" }).healthPort, settings: AGENT_SETTING_NAMES },
};
type App = keyof typeof defaults;
/** Which app an image runs, from its name (vigil/control-plane, vigil/agent:1.2). */
const appOfImage = (image: string): App | undefined => (Object.keys(defaults) as App[]).find((app) => image.split(":")[0] === `vigil/${app}`);
const unknownSettings = (app: App, names: string[]) => names.filter((name) => !defaults[app].settings.includes(name));

describe("deploy/Dockerfile", () => {
  it("lints clean and builds one image per app, run as a non-root user, exposing the app's default port, with a health check", () => {
    expect(lintDockerfile(readText("Dockerfile"))).toEqual([]);
    for (const app of Object.keys(defaults) as App[]) {
      const stage = stages.get(app);
      expect(stage).toBeDefined();
      expect(stage!.user).toBeDefined();
      expect(["root", "0"]).not.toContain(stage!.user);
      expect(stage!.exposed).toEqual([defaults[app].port]);
      expect(stage!.healthcheck).toBe(true);
      expect(unknownSettings(app, Object.keys(stage!.env).filter((name) => name !== "NODE_ENV"))).toEqual([]);
    }
  });

  it("leaves development dependencies out of the images", () => {
    const installs = readText("Dockerfile").match(/pnpm install [^\n]*--filter=@vigil\/[a-z-]+/g) ?? [];
    expect(installs).toHaveLength(2);
    for (const install of installs) expect(install).toContain("--prod");
  });
});

describe("deploy/compose.yaml", () => {
  interface Service {
    image?: string;
    build?: { target?: string };
    environment?: Record<string, string>;
    healthcheck?: unknown;
    restart?: string;
    ports?: string[];
    command?: string[];
  }
  const compose = readYaml("compose.yaml") as { services: Record<string, Service> };
  const services = Object.entries(compose.services);
  const ofApp = (app: App) => services.filter(([, s]) => s.build?.target === app && s.command === undefined);

  it("matches the Compose specification's schema", () => {
    // Draft-07 is Ajv's own; the schema names it by a URL Ajv does not know. Formats (durations) are not checked.
    const { $schema: _draft, ...schema } = composeSpec;
    const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
    const valid = ajv.validate(schema, compose);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("runs PostgreSQL, Redis, two control planes behind a load balancer, and agents in two regions, each restarted and health-checked", () => {
    expect(compose.services.postgres).toBeDefined();
    expect(compose.services.redis).toBeDefined();
    expect(ofApp("control-plane").length).toBeGreaterThanOrEqual(2);
    const regions = ofApp("agent").map(([, s]) => s.environment?.REGION);
    expect(regions.every((region) => isRegionId(region ?? ""))).toBe(true);
    expect(new Set(regions).size).toBeGreaterThanOrEqual(2);
    for (const [name, service] of services) {
      expect({ name, restart: service.restart }).toEqual({ name, restart: expect.stringMatching(/^(unless-stopped|always|on-failure)$/) });
      // The apps' health checks are in their images.
      const app = service.build?.target as App | undefined;
      expect({ name, healthChecked: service.healthcheck !== undefined || (app !== undefined && stages.get(app)!.healthcheck) }).toEqual({ name, healthChecked: true });
      if (app) expect(appOfImage(service.image ?? "")).toBe(app);
    }
  });

  it("sets only settings the apps read, and the regions monitors default to have agents", () => {
    for (const [name, service] of services) {
      const app = service.build?.target as App | undefined;
      if (app) expect({ name, unknown: unknownSettings(app, Object.keys(service.environment ?? {})) }).toEqual({ name, unknown: [] });
    }
    const agentRegions = ofApp("agent").map(([, s]) => s.environment!.REGION);
    for (const [, service] of ofApp("control-plane")) {
      expect(agentRegions).toEqual(expect.arrayContaining(service.environment!.DEFAULT_REGIONS!.split(",")));
    }
  });

  it("balances every control plane on its port, over h2c and checked on /healthz, from the port it publishes", () => {
    const haproxy = readText("haproxy.cfg");
    const servers = [...haproxy.matchAll(/^\s*server\s+\S+\s+([\w.-]+):(\d+)/gm)].map(([, host, port]) => ({ host, port: Number(port) }));
    expect(servers.map((s) => s.host).sort()).toEqual(ofApp("control-plane").map(([name]) => name).sort());
    const port = defaults["control-plane"].port;
    expect(servers.every((s) => s.port === port)).toBe(true);
    expect(haproxy).toMatch(/^\s*default-server\s.*\bproto h2\b.*\bcheck\b/m);
    expect(haproxy).toMatch(/^\s*http-check send .*\buri \/healthz\b/m);
    const [bound] = /^\s*bind\s+:(\d+)/m.exec(haproxy)!.slice(1);
    const balancer = services.find(([, s]) => s.image?.startsWith("haproxy:"))![1];
    expect(balancer.ports).toEqual([expect.stringMatching(new RegExp(`:${bound}$`))]);
  });
});

describe("deploy/k8s", () => {
  const base = readYaml("k8s/base/kustomization.yaml") as {
    resources: string[];
    configMapGenerator: { name: string; literals: string[] }[];
    images: { name: string }[];
  };
  const manifests = base.resources.flatMap((file) => readManifests(`k8s/base/${file}`));
  const secret = readManifests("k8s/base/secret.example.yaml")[0]!;
  const settings = base.configMapGenerator[0]!;
  const settingsData = Object.fromEntries(settings.literals.map((literal) => literal.split(/=(.*)/s).slice(0, 2)));
  const find = (kind: string, name: string) => manifests.find((m) => m.kind === kind && m.metadata.name === name);
  const deployments = manifests.filter((m) => m.kind === "Deployment");

  it("matches the Kubernetes and KEDA schemas", async () => {
    // The models are ES modules only; Jest's module loader takes them one at a time.
    const apps = await import("kubernetes-models/apps/v1");
    const policy = await import("kubernetes-models/policy/v1");
    const core = await import("kubernetes-models/v1");
    const keda = await import("@kubernetes-models/keda/keda.sh/v1alpha1");
    const models: Record<string, new (data: never) => { validate(): void }> = {
      "apps/v1 Deployment": apps.Deployment,
      "v1 Service": core.Service,
      "v1 ConfigMap": core.ConfigMap,
      "v1 Secret": core.Secret,
      "policy/v1 PodDisruptionBudget": policy.PodDisruptionBudget,
      "keda.sh/v1alpha1 ScaledObject": keda.ScaledObject,
    };
    for (const manifest of [...manifests, secret, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: settings.name }, data: settingsData }]) {
      const Model = models[`${manifest.apiVersion} ${manifest.kind}`];
      expect({ kind: manifest.kind, known: Model !== undefined }).toEqual({ kind: manifest.kind, known: true });
      expect(() => new Model!(manifest as never).validate()).not.toThrow();
    }
  });

  it("gives each app's containers only settings it reads, secrets from the Secret, and the image's ports and probes", () => {
    expect(base.images.map((image) => appOfImage(image.name)).sort()).toEqual(["agent", "control-plane"]);
    for (const deployment of deployments) {
      for (const container of deployment.spec.template.spec.containers as any[]) {
        const app = appOfImage(container.image)!;
        expect(app).toBeDefined();
        const env = (container.env ?? []) as { name: string; value?: string; valueFrom?: any }[];
        const fromConfigMap = (container.envFrom ?? []).some((source: any) => source.configMapRef?.name === settings.name) ? Object.keys(settingsData) : [];
        expect(unknownSettings(app, [...env.map((e) => e.name), ...fromConfigMap])).toEqual([]);
        for (const { valueFrom } of env) {
          if (valueFrom?.secretKeyRef) expect(Object.keys(secret.stringData!)).toContain(valueFrom.secretKeyRef.key);
          if (valueFrom?.configMapKeyRef) expect(Object.keys(settingsData)).toContain(valueFrom.configMapKeyRef.key);
        }
        // The container listens where its probes and Service look: the app's default port, which the image exposes.
        const [port] = container.ports as { name: string; containerPort: number }[];
        expect(port!.containerPort).toBe(defaults[app].port);
        expect(stages.get(app)!.exposed).toEqual([port!.containerPort]);
        const portSetting = env.find((e) => e.name === (app === "agent" ? "HEALTH_PORT" : "PORT"));
        expect(portSetting?.value ?? String(port!.containerPort)).toBe(String(port!.containerPort));
        expect(container.readinessProbe.httpGet).toEqual({ path: "/healthz", port: port!.name });
        expect(container.livenessProbe).toBeDefined();
      }
    }
  });

  it("runs the control plane behind a Service on its port, with a disruption budget and probes on /healthz", () => {
    const controlPlane = find("Deployment", "vigil-control-plane")!;
    const labels = controlPlane.spec.template.metadata.labels;
    const [container] = controlPlane.spec.template.spec.containers;
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    expect(controlPlane.spec.replicas).toBeGreaterThanOrEqual(2);
    const service = manifests.find((m) => m.kind === "Service" && Object.entries(m.spec.selector).every(([k, v]) => labels[k] === v))!;
    expect(service.spec.ports).toEqual([expect.objectContaining({ targetPort: container.ports[0].name, appProtocol: "kubernetes.io/h2c" })]);
    const budget = manifests.find((m) => m.kind === "PodDisruptionBudget")!;
    expect(Object.entries(budget.spec.selector.matchLabels).every(([k, v]) => labels[k] === v)).toBe(true);
    expect(budget.spec.minAvailable).toBeLessThan(controlPlane.spec.replicas);
  });

  // Not KEDA's redis scaler on the queue's wait list: scheduled checks carry a priority and wait in BullMQ's sorted set.
  it("scales the agents with KEDA on the region's queue depth, as the control plane exports it", () => {
    const scaled = manifests.find((m) => m.kind === "ScaledObject")!;
    expect(find("Deployment", scaled.spec.scaleTargetRef.name)?.spec.template.spec.containers[0].image).toMatch(/^vigil\/agent/);
    const [trigger] = scaled.spec.triggers;
    expect(trigger.type).toBe("prometheus");
    expect(trigger.metadata.serverAddress).toMatch(/^https?:\/\//);
    expect(trigger.metadata.query).toBe(`max(${(queueDepth as unknown as { name: string }).name}{region="REGION-SET-BY-OVERLAY"})`);
    expect(Number(trigger.metadata.threshold)).toBeGreaterThan(0);
  });

  describe.each(overlayNames())("overlay %s", (region) => {
    const dir = `k8s/overlays/${region}`;
    const overlay = readYaml(`${dir}/kustomization.yaml`) as {
      namespace: string;
      resources: string[];
      patches: { path?: string; patch?: string; target?: { kind: string; name: string } }[];
    };

    it("is a region, over the base, in a namespace of its own", () => {
      expect(isRegionId(region)).toBe(true);
      expect(overlay.resources).toEqual(["../../base"]);
      expect(exists(`${dir}/../../base/kustomization.yaml`)).toBe(true);
      expect(overlay.namespace).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      expect(new Set(overlayNames().map((name) => (readYaml(`k8s/overlays/${name}/kustomization.yaml`) as { namespace: string }).namespace)).size).toBe(overlayNames().length);
    });

    it("sets the agents' REGION, and KEDA watches that region's queue depth", () => {
      const filePatches = overlay.patches.filter((p) => p.path !== undefined);
      for (const { path } of filePatches) expect(exists(`${dir}/${path}`)).toBe(true);
      const patched = filePatches.flatMap(({ path }) => readManifests(`${dir}/${path}`));
      for (const patch of patched) expect(find(patch.kind, patch.metadata.name)).toBeDefined();
      const agentPatch = patched.find((m: Manifest) => m.kind === "Deployment")!;
      const baseAgent = find("Deployment", agentPatch.metadata.name)!.spec.template.spec.containers[0];
      const [patchedContainer] = agentPatch.spec.template.spec.containers;
      expect(patchedContainer.name).toBe(baseAgent.name);
      // The strategic merge replaces the base's REGION entry (env merges by name).
      expect(baseAgent.env.map((e: { name: string }) => e.name)).toContain("REGION");
      expect(patchedContainer.env).toEqual([{ name: "REGION", value: region }]);

      const jsonPatches = overlay.patches.filter((p) => p.patch !== undefined);
      const wantedQuery = `max(vigil_queue_depth{region="${region}"})`;
      const listPatch = jsonPatches.flatMap((p) => {
        const target = find(p.target!.kind, p.target!.name);
        expect(target).toBeDefined();
        return (parseYaml(p.patch!) as { op: string; path: string; value: string }[]).map((op) => ({ op, target: target! }));
      });
      expect(listPatch).toHaveLength(1);
      const { op, target } = listPatch[0]!;
      expect(op).toEqual({ op: "replace", path: "/spec/triggers/0/metadata/query", value: wantedQuery });
      expect(target.spec.triggers[0].metadata.query).toBeDefined();
    });
  });
});

