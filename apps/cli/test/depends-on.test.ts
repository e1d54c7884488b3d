import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { STATUS_RULES } from "../../control-plane/test/support/api.js";
import { checkResult } from "../../control-plane/test/support/results.js";
import { storeResults } from "../../control-plane/src/results/store.js";
import { vigil } from "./support/cli.js";
import { cliWorkspace } from "./support/workspace.js";

/** dependsOn through the built CLI: --depends-on, also-affected monitors on `incidents get`, and vigil.yaml by key. */
describe("vigil: monitor dependencies", () => {
  const cli = cliWorkspace("depends");
  const { ok, okJson } = cli;
  const tcp = async (name: string, ...flags: string[]) =>
    (await okJson(["monitors", "create", "tcp", "--name", name, "--uri", "db.example.com:5432", "--periodicity", "1m", ...flags])).monitor;

  it("create and update take --depends-on id,id for every kind; '' clears it; a cycle is refused naming it", async () => {
    const root = await tcp("root");
    const mid = await tcp("mid", "--depends-on", root.id);
    const both = await okJson(["monitors", "create", "http", "--name", "web", "--url", "https://example.com", "--periodicity", "1m", "--depends-on", `${mid.id}, ${root.id}`]);
    expect(both.monitor.dependsOn).toEqual([mid.id, root.id]);
    const beat = await okJson(["monitors", "create", "heartbeat", "--name", "job", "--depends-on", root.id]);
    expect(beat.monitor.dependsOn).toEqual([root.id]);
    expect((await ok(["monitors", "get", mid.id])).stdout).toMatch(new RegExp(`^dependsOn\\s+${root.id}$`, "m"));

    expect((await okJson(["monitors", "update", both.monitor.id, "--depends-on", root.id])).monitor.dependsOn).toEqual([root.id]);
    const cleared = await okJson(["monitors", "update", beat.monitor.id, "--depends-on", ""]);
    expect(cleared.monitor).toMatchObject({ name: "job" });
    expect(cleared.monitor.dependsOn ?? []).toEqual([]);

    const cycle = await vigil(["monitors", "update", root.id, "--depends-on", mid.id], cli.env());
    expect(cycle.code).not.toBe(0);
    expect(cycle.stderr).toContain(`monitor.dependsOn: makes a cycle: root (${root.id}) → mid (${mid.id}) → root (${root.id})`);
  });

  it("incidents get lists the monitors the incident also affected", async () => {
    const root = await tcp("db");
    const app = await tcp("app", "--depends-on", root.id);
    const at = new Date(Date.now() - 60_000).toISOString();
    await storeResults(cli.api.db.prisma, [checkResult(root.id, "hostA-ams", at, "error")], STATUS_RULES);
    await storeResults(cli.api.db.prisma, [checkResult(app.id, "hostA-ams", at, "error")], STATUS_RULES);
    const [incident] = (await okJson(["incidents", "list", "--monitor", root.id])).incidents;
    expect(incident.alsoAffected).toEqual([app.id]);
    expect((await ok(["incidents", "get", incident.id])).stdout).toMatch(new RegExp(`^alsoAffected\\s+${app.id}$`, "m"));
  });

  it("vigil.yaml names dependencies by key: applied in order, no change planned after, exported by key; a cycle is refused", async () => {
    const file = join(cli.dir, "vigil.yaml");
    // The dependent first in the file: apply creates what it depends on before it.
    const text = (appDependsOn: string) => `
project: deps
monitors:
  app:
    type: http
    name: App
    url: https://app.example.com
    periodicity: 1m
    dependsOn: [${appDependsOn}]
  api:
    type: tcp
    name: Api
    uri: cli.api.example.com:443
    periodicity: 1m
    dependsOn: [db]
  db:
    type: tcp
    name: Db
    uri: db.example.com:5432
    periodicity: 1m
`;
    await writeFile(file, text("api"));
    await ok(["apply", "-f", file]);
    const { httpMonitors, tcpMonitors } = await cli.api.client(cli.ws.write.key).listMonitors({ limit: 100 });
    const idOf = (key: string) => [...httpMonitors, ...tcpMonitors].find((m) => m.externalId === `deps/${key}`)!.id;
    expect(httpMonitors.find((m) => m.externalId === "deps/app")!.dependsOn).toEqual([idOf("api")]);
    expect(tcpMonitors.find((m) => m.externalId === "deps/api")!.dependsOn).toEqual([idOf("db")]);
    expect((await vigil(["plan", "-f", file, "--detailed-exitcode"], cli.env())).code).toBe(0);

    await writeFile(file, text("api, db"));
    const plan = await vigil(["plan", "-f", file, "--detailed-exitcode"], cli.env());
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain("dependsOn");
    await ok(["apply", "-f", file]);
    expect((await cli.api.client(cli.ws.read.key).getMonitor({ id: idOf("app") })).monitor!.config.value).toMatchObject({ dependsOn: [idOf("api"), idOf("db")] });

    const exported = parse((await ok(["export", "--project", "deps"])).stdout);
    expect(exported.monitors.app.dependsOn).toEqual(["api", "db"]);
    expect(exported.monitors.db).not.toHaveProperty("dependsOn");

    const bad = join(cli.dir, "cycle.yaml");
    await writeFile(bad, text("api").replace("dependsOn: [db]", "dependsOn: [app]").replace("dependsOn: [api]", "dependsOn: [api, nowhere]"));
    const run = await vigil(["plan", "-f", bad], cli.env());
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("monitors.app.dependsOn[1]: names nowhere, which is not a monitor of this file");
    await writeFile(bad, text("api").replace("dependsOn: [db]", "dependsOn: [app]"));
    const cycle = await vigil(["plan", "-f", bad], cli.env());
    expect(cycle.code).not.toBe(0);
    expect(cycle.stderr).toContain("monitors.app.dependsOn: makes a cycle: app → api → app");
  });
});
