// Bundles the provider for a fast start: Terraform launches it several times
// per command and waits for its handshake each time. Three files: the launcher
// (terraform-provider-service: socket, handshake), the certificate it makes
// first (certificate.cjs: the X.509 library) and the provider it loads right
// after the handshake (provider.cjs), with V8's code cache of the latter two
// (*.cjs.v8-cache) so a launch does not compile them.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { bundle } from "../../scripts/bundle.mjs";

const LAUNCHER = "terraform-provider-service";
// Built aside and moved in, provider first, launcher last, so that a terraform run in progress never finds dist/ empty.
const next = "dist/.next";
rmSync(next, { recursive: true, force: true });
mkdirSync(next, { recursive: true });
// CommonJS runs the same wherever the files are copied, with or without a package.json beside them.
await bundle({ entry: "src/plugin/certificate.ts", outfile: `${next}/certificate.cjs`, format: "cjs", minify: true });
await bundle({ entry: "src/plugin-handler.ts", outfile: `${next}/provider.cjs`, format: "cjs", minify: true });
await bundle({ entry: "src/main.ts", outfile: `${next}/${LAUNCHER}`, format: "cjs", minify: true, banner: "#!/usr/bin/env node" });
chmodSync(`${next}/${LAUNCHER}`, 0o755);
// This package's own "type": "module" would make Node read the extension-less launcher as ESM.
writeFileSync(`${next}/package.json`, '{ "type": "commonjs" }\n');
execFileSync(process.execPath, [`${next}/${LAUNCHER}`, "--write-code-cache"], { stdio: "inherit" });
for (const file of readdirSync(next).sort((a, b) => Number(a === LAUNCHER) - Number(b === LAUNCHER))) renameSync(`${next}/${file}`, `dist/${file}`);
rmSync(next, { recursive: true });
