// pnpm terraform:package [folder] — release archives in the layout a provider registry serves
// (default folder apps/terraform-provider/release/): one zip per platform holding the executable,
// the SHA256SUMS file over them, and the registry manifest naming the plugin protocol.
// The bundle is platform-independent JavaScript, so every zip holds the same files; Windows is left
// out because Terraform there runs only .exe files.
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { finished } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { ZipFile } from "yazl";
import { PROVIDER, providerFiles, type Platform, type ProviderFile } from "./release.js";

const PLATFORMS: Platform[] = ["linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"];
/** The registry's manifest: the provider speaks protocol 6 only. */
const MANIFEST = { version: 1, metadata: { protocol_versions: ["6.0"] } };

const folder = resolve(process.argv[2] ?? fileURLToPath(new URL("../release/", import.meta.url)));
const prefix = `terraform-provider-${PROVIDER.type}_${PROVIDER.version}`;

/** A zip keeping each file's unix mode (the executable bit) in its external attributes. */
async function writeZip(path: string, files: ProviderFile[]): Promise<void> {
  const zip = new ZipFile();
  // One fixed time: archives of the same build are byte for byte the same, and so are their checksums.
  const mtime = new Date("2000-01-01T00:00:00Z");
  for (const file of files) zip.addBuffer(file.content, file.name, { mode: 0o100000 | file.mode, mtime });
  zip.end();
  await finished(zip.outputStream.pipe(createWriteStream(path)));
}

const files = await providerFiles();
await rm(folder, { recursive: true, force: true });
await mkdir(folder, { recursive: true });
const written: string[] = [];
for (const platform of PLATFORMS) {
  const name = `${prefix}_${platform}.zip`;
  await writeZip(join(folder, name), files);
  written.push(name);
}
const manifestName = `${prefix}_manifest.json`;
await writeFile(join(folder, manifestName), JSON.stringify(MANIFEST, null, 2) + "\n");
written.push(manifestName);

const sha256 = async (name: string) => createHash("sha256").update(await readFile(join(folder, name))).digest("hex");
const sums = await Promise.all(written.sort().map(async (name) => `${await sha256(name)}  ${name}\n`));
await writeFile(join(folder, `${prefix}_SHA256SUMS`), sums.join(""));

process.stdout.write(`Packaged ${PROVIDER.address} ${PROVIDER.version} for ${PLATFORMS.join(", ")} into ${folder}\n`);
