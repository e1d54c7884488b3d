import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTestApi, type TestApi, type TestApiOptions, type WorkspaceKeys } from "../../../control-plane/test/support/api.js";

/** The folder of the built provider, as a dev_overrides entry names it. */
export const PROVIDER_DIR = resolve(__dirname, "../../dist");
export const PROVIDER_BINARY = join(PROVIDER_DIR, "terraform-provider-service");
export const TERRAFORM = process.env.TERRAFORM_BINARY ?? "terraform";

export interface TerraformRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end with its output captured; asynchronously, as the API under test answers from the test's own process. */
export function runProcess(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<TerraformRun> {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolveRun, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** Settings of the machine running the tests that would change what terraform or the provider does. */
const CLEARED = /^(TF_|SERVICE_API_|NODE_OPTIONS$|PLUGIN_)/;

/** The required_providers block and a provider block talking to `baseUrl` with `token` (omitted: left to the environment). */
export function providerConfig(baseUrl: string, token?: string): string {
  return `terraform {
  required_providers {
    service = { source = "vigil/service", version = "~> 0.1" }
  }
}

provider "service" {
  base_url = "${baseUrl}"${token === undefined ? "" : `\n  api_token = "${token}"`}
}
`;
}

/**
 * A Terraform working folder with a CLI configuration whose dev_overrides
 * point at the built provider; HOME is the folder too, so nothing of the
 * machine's own Terraform settings applies.
 */
export class TerraformDir {
  dir = "";
  private env: NodeJS.ProcessEnv = {};

  /** `provider`: the provider block `configure` puts before a configuration. */
  private constructor(private readonly provider: () => string = () => "") {}

  static async create(env: NodeJS.ProcessEnv = {}): Promise<TerraformDir> {
    const tf = new TerraformDir();
    await tf.open(env);
    return tf;
  }

  /** A folder for the tests of the describe block (or file) this is called in: made before them, removed after them. */
  static forTests(provider?: () => string): TerraformDir {
    const tf = new TerraformDir(provider);
    beforeAll(() => tf.open());
    afterAll(() => tf.remove());
    return tf;
  }

  private async open(env: NodeJS.ProcessEnv = {}): Promise<void> {
    if (!existsSync(PROVIDER_BINARY)) {
      throw new Error(`${PROVIDER_BINARY} is missing: build the provider first (cd apps/terraform-provider && pnpm -s build)`);
    }
    this.dir = await mkdtemp(join(tmpdir(), "vigil-terraform-"));
    const cliConfig = join(this.dir, "terraform.rc");
    await writeFile(
      cliConfig,
      `provider_installation {\n  dev_overrides {\n    "registry.terraform.io/vigil/service" = "${PROVIDER_DIR}"\n  }\n  direct {}\n}\n`,
    );
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CLEARED.test(name)));
    this.env = { ...base, HOME: this.dir, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", TF_INPUT: "0", ...env };
  }

  write(content: string, file = "main.tf"): Promise<void> {
    return writeFile(join(this.dir, file), content);
  }

  /** Writes `content` after the provider block of the fixture's API and write key. */
  configure = (content: string) => this.write(this.provider() + content);

  run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<TerraformRun> {
    return runProcess(TERRAFORM, args, { cwd: this.dir, env: { ...this.env, ...env } });
  }

  /** `terraform <command> -no-color <args>` (command may be two words, `state rm`), expecting exit code `code`. */
  async expectExit(code: number, command: string, ...args: string[]): Promise<TerraformRun> {
    const result = await this.run([...command.split(" "), "-no-color", ...args]);
    if (result.code !== code) {
      throw new Error(`terraform ${[command, ...args].join(" ")} exited with ${result.code}, not ${code}:\n${result.stderr}\n${result.stdout}`);
    }
    if (code === 0) expect(result.stderr).toBe("");
    return result;
  }

  apply = (...args: string[]) => this.expectExit(0, "apply", "-auto-approve", ...args);

  /** The plan's exit code with -detailed-exitcode: 0 no changes, 2 changes (and the plan's text). */
  plan = (code: 0 | 2, ...args: string[]) => this.expectExit(code, "plan", "-detailed-exitcode", ...args);

  destroy = () => this.expectExit(0, "destroy", "-auto-approve");

  /** Forgets a resource and imports it again by `id`, as an existing object is taken under Terraform. */
  async reimport(address: string, id: string): Promise<void> {
    await this.expectExit(0, "state rm", address);
    await this.expectExit(0, "import", address, id);
  }

  /** A resource's attributes in the state, from `terraform show -json`. */
  async stateOf(address: string): Promise<Record<string, unknown> | undefined> {
    const { stdout } = await this.expectExit(0, "show", "-json");
    const resources: { address: string; values: Record<string, unknown> }[] = JSON.parse(stdout).values?.root_module?.resources ?? [];
    return resources.find((resource) => resource.address === address)?.values;
  }

  async remove(): Promise<void> {
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * The fixture of a test file: an API (PGlite) and a workspace, started before its tests and
 * closed after them, and `folder()`, a Terraform folder whose configurations talk to that API.
 */
export function terraformTests(options?: TestApiOptions) {
  const fixture = {
    api: undefined as unknown as TestApi,
    ws: undefined as unknown as WorkspaceKeys,
    folder: () => TerraformDir.forTests(() => providerConfig(fixture.api.baseUrl, fixture.ws.write.key)),
    /** The monitor service's client with the workspace's write key. */
    client: () => fixture.api.client(fixture.ws.write.key),
  };
  beforeAll(async () => {
    fixture.api = await startTestApi("pglite", options);
    fixture.ws = await fixture.api.workspace();
  });
  afterAll(() => fixture.api?.close());
  return fixture;
}
