// pnpm terraform:install — copies the built provider into Terraform's implied local mirror under the
// current $HOME, where a plain `terraform init` finds it offline with no CLI configuration: Terraform
// searches `~/.terraform.d/plugins` for providers in the unpacked layout
// HOSTNAME/NAMESPACE/TYPE/VERSION/OS_ARCH/ whenever no provider_installation block says otherwise.
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { PROVIDER, providerFiles, terraformPlatform } from "./release.js";

const platform = terraformPlatform();
const folder = join(homedir(), ".terraform.d", "plugins", PROVIDER.hostname, PROVIDER.namespace, PROVIDER.type, PROVIDER.version, platform);

const files = await providerFiles();
// A fresh folder: a file left from an earlier install would change the checksum Terraform records in lock files.
await rm(folder, { recursive: true, force: true });
await mkdir(folder, { recursive: true });
for (const file of files) {
  const path = join(folder, file.name);
  await writeFile(path, file.content);
  await chmod(path, file.mode);
}
process.stdout.write(
  `Installed ${PROVIDER.address} ${PROVIDER.version} (${platform}) into ${folder}\n` +
    `terraform init finds it there with no CLI configuration; it runs with the node on PATH.\n`,
);
