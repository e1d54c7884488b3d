// What a copy of the provider is, wherever it goes (the local mirror, a release archive): Terraform's names
// for it, taken from the constants the provider itself announces, and the files of the built bundle.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { PROVIDER_ADDRESS, PROVIDER_VERSION } from "../src/provider.js";

const [hostname = "", namespace = "", type = ""] = PROVIDER_ADDRESS.split("/");
export const PROVIDER = { address: PROVIDER_ADDRESS, hostname, namespace, type, version: PROVIDER_VERSION };

/** Terraform runs the file of a provider folder whose name starts with `terraform-provider-<type>`; the version suffix is the registry's convention. */
export const EXECUTABLE = `terraform-provider-${type}_v${PROVIDER_VERSION}`;

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));
/** What the launcher loads (see build.mjs), each bundle with V8's code cache. */
const BUNDLE_FILES = ["certificate.cjs", "certificate.cjs.v8-cache", "provider.cjs", "provider.cjs.v8-cache"];

/** A platform in Terraform's names (`linux_amd64`). */
export type Platform = `${string}_${string}`;

const TERRAFORM_OS: Partial<Record<NodeJS.Platform, string>> = { linux: "linux", darwin: "darwin", freebsd: "freebsd", openbsd: "openbsd" };
const TERRAFORM_ARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: "amd64", arm64: "arm64", ia32: "386", arm: "arm" };

/**
 * This machine's platform in Terraform's names. Windows is refused: Terraform there runs only `.exe`
 * files, and the provider is a script run through its shebang.
 */
export function terraformPlatform(): Platform {
  const os = TERRAFORM_OS[process.platform];
  const terraformArch = TERRAFORM_ARCH[process.arch];
  if (!os || !terraformArch) {
    throw new Error(
      `The provider cannot be installed on ${process.platform}/${process.arch}: it is a Node.js script started through its "#!/usr/bin/env node" line, ` +
        "which Terraform can run on Linux, macOS and the BSDs (on x64, arm64, ia32 or arm), but not on Windows, where it starts only .exe files.",
    );
  }
  return `${os}_${terraformArch}`;
}

export interface ProviderFile {
  name: string;
  content: Buffer;
  /** Unix permission bits. */
  mode: number;
}

/**
 * The launcher under Terraform's executable name, the certificate and provider bundles it loads with
 * their V8 code caches (which another Node version ignores), and the package.json that makes Node read them as
 * CommonJS even below a folder whose package.json says `"type": "module"` (a JavaScript project
 * holding a Terraform configuration, whose .terraform/providers the bundle is unpacked into).
 */
export async function providerFiles(): Promise<ProviderFile[]> {
  const read = async (name: string) => {
    try {
      return await readFile(DIST + name);
    } catch (error) {
      throw new Error(`${DIST}${name} is missing: build the provider first (pnpm --filter @vigil/terraform-provider build)`, { cause: error });
    }
  };
  return [
    { name: EXECUTABLE, content: await read(`terraform-provider-${type}`), mode: 0o755 },
    ...(await Promise.all(BUNDLE_FILES.map(async (name) => ({ name, content: await read(name), mode: 0o644 })))),
    { name: "package.json", content: await read("package.json"), mode: 0o644 },
  ];
}
