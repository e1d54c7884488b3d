// Bundles the provider into one executable file for a fast start: Terraform
// launches it several times per command, so start-up time is what users feel.
import { chmodSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { bundle } from "../../scripts/bundle.mjs";

const outfile = "dist/terraform-provider-service";
mkdirSync("dist", { recursive: true });
// The bundle is written beside the old one and renamed over it, so that a terraform run in progress never finds dist/ empty.
const next = `${outfile}.next`;
await bundle({
  entry: "src/main.ts",
  outfile: next,
  // CommonJS runs the same wherever the file is copied, with or without a package.json beside it.
  format: "cjs",
  minify: true,
  banner: "#!/usr/bin/env node",
});
chmodSync(next, 0o755);
renameSync(next, outfile);
// This package's own "type": "module" would make Node read the extension-less file as ESM.
writeFileSync("dist/package.json", '{ "type": "commonjs" }\n');
