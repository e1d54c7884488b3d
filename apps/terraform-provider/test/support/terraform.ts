import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The folder of the built provider, as a dev_overrides entry names it. */
export const PROVIDER_DIR = resolve(__dirname, "../../dist");
export const PROVIDER_BINARY = join(PROVIDER_DIR, "terraform-provider-service");
export const TERRAFORM = process.env.TERRAFORM_BINARY ?? "terraform";

export interface TerraformRun {
  code: number | null;
  stdout: string;
  stderr: string;
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
 * machine's own Terraform settings applies. Runs terraform asynchronously:
 * the API under test answers from the test's own process.
 */
export class TerraformDir {
  private constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async create(env: NodeJS.ProcessEnv = {}): Promise<TerraformDir> {
    if (!existsSync(PROVIDER_BINARY)) {
      throw new Error(`${PROVIDER_BINARY} is missing: build the provider first (cd apps/terraform-provider && pnpm -s build)`);
    }
    const dir = await mkdtemp(join(tmpdir(), "vigil-terraform-"));
    const cliConfig = join(dir, "terraform.rc");
    await writeFile(
      cliConfig,
      `provider_installation {\n  dev_overrides {\n    "registry.terraform.io/vigil/service" = "${PROVIDER_DIR}"\n  }\n  direct {}\n}\n`,
    );
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CLEARED.test(name)));
    return new TerraformDir(dir, { ...base, HOME: dir, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: "1", TF_IN_AUTOMATION: "1", TF_INPUT: "0", ...env });
  }

  write(content: string, file = "main.tf"): Promise<void> {
    return writeFile(join(this.dir, file), content);
  }

  run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<TerraformRun> {
    const child = spawn(TERRAFORM, [...args], { cwd: this.dir, env: { ...this.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolveRun, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolveRun({ code, stdout, stderr }));
    });
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

  /** A resource's attributes in the state, from `terraform show -json`. */
  async stateOf(address: string): Promise<Record<string, unknown> | undefined> {
    const { stdout } = await this.expectExit(0, "show", "-json");
    const resources: { address: string; values: Record<string, unknown> }[] = JSON.parse(stdout).values?.root_module?.resources ?? [];
    return resources.find((resource) => resource.address === address)?.values;
  }

  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}
