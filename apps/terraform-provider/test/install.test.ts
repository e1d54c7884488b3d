import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { startTestApi, type TestApi, type WorkspaceKeys } from "../../control-plane/test/support/api.js";
import { NOT_STARTED_BY_TERRAFORM } from "../src/plugin/handshake.js";
import { PROVIDER_VERSION } from "../src/provider.js";
import { PROVIDER_BINARY, PROVIDER_DIR, providerConfig, runProcess, TerraformDir } from "./support/terraform.js";

const ROOT = resolve(__dirname, "../../..");

/** Files compared by digest: Jest compares large buffers byte by byte, slowly. */
const sha256 = (content: Buffer) => createHash("sha256").update(content).digest("hex");

const run = (command: string, args: string[], env: NodeJS.ProcessEnv) => runProcess(command, args, { cwd: ROOT, env });

/**
 * What `pnpm terraform:<name>` runs after building the provider. The build is left out: the other
 * provider tests use the same dist/, which a build empties while it runs.
 */
async function runScript(name: "install" | "package", env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const script = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")).scripts[`terraform:${name}`] as string;
  const [, afterBuild = ""] = script.split(" && ");
  const [tsx = "", ...tsxArgs] = afterBuild.split(" ");
  const { NODE_OPTIONS: _jestOptions, ...inherited } = process.env;
  const result = await run(join(ROOT, "node_modules/.bin", tsx), [...tsxArgs, ...args], { ...inherited, ...env });
  if (result.code !== 0) throw new Error(`pnpm terraform:${name} exited with ${result.code}:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/** This machine in Terraform's platform names (the machines the tests run on). */
const TERRAFORM_ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };
const PLATFORM = `${process.platform}_${TERRAFORM_ARCH[process.arch]}`;
const mirrorFolder = (home: string) => join(home, ".terraform.d/plugins/registry.terraform.io/vigil/service", PROVIDER_VERSION, PLATFORM);
const EXECUTABLE = `terraform-provider-service_v${PROVIDER_VERSION}`;
/** What the launcher loads: the certificate's bundle before the handshake, the provider's after it. */
const BUNDLE_FILES = ["certificate.cjs", "certificate.cjs.v8-cache", "provider.cjs", "provider.cjs.v8-cache"];

/** A proxy nobody listens on: any registry request Terraform tried would fail at once. */
const NO_NETWORK = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9" };

const MONITOR = `
resource "service_tcp_monitor" "installed" {
  name        = "Installed provider"
  uri         = "db.example.com:5432"
  periodicity = "5m"
}
`;

describe("pnpm terraform:install", () => {
  let api: TestApi;
  let ws: WorkspaceKeys;
  let home: string;
  let output: string;

  beforeAll(async () => {
    [api, home] = await Promise.all([startTestApi("pglite"), mkdtemp(join(tmpdir(), "vigil-home-"))]);
    ws = await api.workspace();
    output = await runScript("install", { HOME: home });
  });
  afterAll(async () => {
    await api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("puts the executable launcher, the certificate and provider bundles with their code caches, and their package.json into the implied local mirror of a fresh HOME and says where", async () => {
    const folder = mirrorFolder(home);
    expect(output).toContain(folder);
    expect((await readdir(folder)).sort()).toEqual([EXECUTABLE, ...BUNDLE_FILES, "package.json"].sort());
    for (const file of BUNDLE_FILES) expect(sha256(await readFile(join(folder, file)))).toBe(sha256(await readFile(join(PROVIDER_DIR, file))));
    expect((await stat(join(folder, EXECUTABLE))).mode & 0o111).toBe(0o111);
    expect(sha256(await readFile(join(folder, EXECUTABLE)))).toBe(sha256(await readFile(PROVIDER_BINARY)));
    expect(JSON.parse(await readFile(join(folder, "package.json"), "utf8"))).toEqual({ type: "commonjs" });
  });

  it("a plain terraform init finds it offline with an empty CLI configuration, and apply and destroy work", async () => {
    const tf = await TerraformDir.create({ HOME: home, ...NO_NETWORK });
    try {
      const emptyCliConfig = join(tf.dir, "empty.tfrc");
      await writeFile(emptyCliConfig, "");
      const env = { TF_CLI_CONFIG_FILE: emptyCliConfig };
      await tf.write(providerConfig(api.baseUrl, ws.write.key) + MONITOR);
      const init = await tf.run(["init", "-no-color"], env);
      expect(init).toMatchObject({ code: 0, stderr: "" });
      expect(init.stdout).toContain(`Installed vigil/service v${PROVIDER_VERSION}`);
      expect(await readFile(join(tf.dir, ".terraform.lock.hcl"), "utf8")).toContain('provider "registry.terraform.io/vigil/service"');

      const apply = await tf.run(["apply", "-auto-approve", "-no-color"], env);
      expect(apply).toMatchObject({ code: 0, stderr: "" });
      const { tcpMonitors } = await api.client(ws.write.key).listMonitors({});
      expect(tcpMonitors.map((monitor) => monitor.name)).toEqual(["Installed provider"]);

      expect(await tf.run(["destroy", "-auto-approve", "-no-color"], env)).toMatchObject({ code: 0, stderr: "" });
      expect((await api.client(ws.write.key).listMonitors({})).totalSize).toBe(0);
    } finally {
      await tf.remove();
    }
  });

  it("applies the README's example configuration, with the token and address from the environment, and plans no change after", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const example = /^## Terraform$[\s\S]*?^```hcl\n([\s\S]*?)^```$/m.exec(readme)?.[1];
    expect(example).toContain('resource "service_status_page_component"');
    const tf = await TerraformDir.create({
      HOME: home,
      TF_CLI_CONFIG_FILE: undefined,
      SERVICE_API_TOKEN: ws.write.key,
      SERVICE_API_URL: api.baseUrl,
      TF_VAR_slack_webhook_url: "https://hooks.slack.com/services/T000/B000/XXXX",
      ...NO_NETWORK,
    });
    try {
      await tf.write(example ?? "");
      await tf.expectExit(0, "init");
      await tf.apply();
      await tf.plan(0);
      const monitorId = (await tf.stateOf("service_http_monitor.api"))?.id;
      const groupId = (await tf.stateOf("service_status_page_component_group.api"))?.id;
      expect(await tf.stateOf("service_notification.ops")).toMatchObject({ monitor_ids: [monitorId] });
      expect(await tf.stateOf("service_status_page_component.api")).toMatchObject({ type: "monitor", monitor_id: monitorId, group_id: groupId });
      await tf.expectExit(0, "destroy", "-auto-approve");
    } finally {
      await tf.remove();
    }
  });

  it("terraform init finds it with no CLI configuration file at all", async () => {
    const tf = await TerraformDir.create({ HOME: home, TF_CLI_CONFIG_FILE: undefined, ...NO_NETWORK });
    try {
      await tf.write(providerConfig(api.baseUrl, ws.write.key) + MONITOR);
      await tf.expectExit(0, "init");
      await tf.plan(2);
    } finally {
      await tf.remove();
    }
  });
});

interface ZipEntry {
  name: string;
  mode: number;
  content: Buffer;
}

async function readZip(path: string): Promise<ZipEntry[]> {
  const zip = await promisify<string, yauzl.Options, ZipFile>(yauzl.open)(path, { lazyEntries: true });
  const openEntry = promisify(zip.openReadStream.bind(zip)) as (entry: Entry) => Promise<NodeJS.ReadableStream>;
  const entries: ZipEntry[] = [];
  return new Promise((resolveEntries, reject) => {
    zip.on("error", reject);
    zip.on("end", () => resolveEntries(entries));
    zip.on("entry", (entry: Entry) => {
      openEntry(entry)
        .then(async (stream) => {
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          // The unix mode sits in the upper half of the external attributes.
          entries.push({ name: entry.fileName, mode: entry.externalFileAttributes >>> 16, content: Buffer.concat(chunks) });
          zip.readEntry();
        })
        .catch(reject);
    });
    zip.readEntry();
  });
}

describe("pnpm terraform:package", () => {
  const PREFIX = `terraform-provider-service_${PROVIDER_VERSION}`;
  const PLATFORMS = ["darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"];
  let folder: string;

  beforeAll(async () => {
    folder = join(await mkdtemp(join(tmpdir(), "vigil-release-")), "release");
    await runScript("package", {}, folder);
  });
  afterAll(() => rm(resolve(folder, ".."), { recursive: true, force: true }));

  it("writes a zip per platform, the SHA256SUMS over them and the manifest, in the registry's names", async () => {
    expect((await readdir(folder)).sort()).toEqual(
      [...PLATFORMS.map((platform) => `${PREFIX}_${platform}.zip`), `${PREFIX}_SHA256SUMS`, `${PREFIX}_manifest.json`].sort(),
    );
    expect(JSON.parse(await readFile(join(folder, `${PREFIX}_manifest.json`), "utf8"))).toEqual({ version: 1, metadata: { protocol_versions: ["6.0"] } });
  });

  it("SHA256SUMS matches every archive and the manifest", async () => {
    const lines = (await readFile(join(folder, `${PREFIX}_SHA256SUMS`), "utf8")).trimEnd().split("\n");
    const sums = lines.map((line) => line.split("  ") as [string, string]);
    expect(sums.map(([, name]) => name).sort()).toEqual([...PLATFORMS.map((platform) => `${PREFIX}_${platform}.zip`), `${PREFIX}_manifest.json`].sort());
    for (const [sum, name] of sums) {
      expect(sha256(await readFile(join(folder, name)))).toBe(sum);
    }
  });

  it("each zip unpacks to the launcher as an executable that runs, beside the certificate and provider bundles", async () => {
    const bundle = sha256(await readFile(PROVIDER_BINARY));
    for (const platform of PLATFORMS) {
      const entries = await readZip(join(folder, `${PREFIX}_${platform}.zip`));
      expect(entries.map(({ name, mode }) => ({ name, mode }))).toEqual([
        { name: EXECUTABLE, mode: 0o100755 },
        ...BUNDLE_FILES.map((name) => ({ name, mode: 0o100644 })),
        { name: "package.json", mode: 0o100644 },
      ]);
      expect(sha256(entries[0]?.content ?? Buffer.alloc(0))).toBe(bundle);
    }
    // Unpacked as Terraform does, the executable starts (and, not launched by Terraform, says so).
    const unpacked = join(folder, "unpacked");
    await mkdir(unpacked);
    for (const entry of await readZip(join(folder, `${PREFIX}_linux_amd64.zip`))) {
      await writeFile(join(unpacked, entry.name), entry.content);
      await chmod(join(unpacked, entry.name), entry.mode & 0o777);
    }
    const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
    expect(await run(join(unpacked, EXECUTABLE), [], env)).toEqual({ code: 1, stdout: "", stderr: NOT_STARTED_BY_TERRAFORM });
  });
});
