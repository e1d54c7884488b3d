// Bundles the provider into one executable file for a fast start: Terraform
// launches it several times per command, so start-up time is what users feel.
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const packages = new URL("../../packages/", import.meta.url).pathname;

/**
 * The workspace packages from their TypeScript sources, so the bundle takes
 * their dependencies' ES modules (which esbuild can prune) rather than CommonJS.
 */
const alias = {
  "@vigil/domain": `${packages}domain/src/index.ts`,
  "@vigil/client": `${packages}client/src/index.ts`,
  "@vigil/proto/notification": `${packages}proto/src/notification.ts`,
  "@vigil/proto/status-page": `${packages}proto/src/status-page.ts`,
  "@vigil/proto": `${packages}proto/src/index.ts`,
};
const workspaceSource = /[\\/]packages[\\/](domain|client|proto)[\\/]src[\\/]/;

/**
 * The workspace packages' modules only define things: what the provider does
 * not use of them (the domain's status-page and alerting rules, say) is left
 * out rather than evaluated at every launch.
 */
const sideEffectFreeWorkspace = {
  name: "side-effect-free-workspace",
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.resolving || !(workspaceSource.test(args.importer) || args.path.startsWith("@vigil/"))) return undefined;
      const result = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { resolving: true } });
      return workspaceSource.test(result.path) ? { path: result.path, sideEffects: false } : result;
    });
  },
};

/** zod bundles error messages in 40-odd languages; the provider speaks English only (a quarter of the bundle otherwise). */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(build) {
    build.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', loader: "js" }));
  },
};

const outfile = "dist/terraform-provider-service";
rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  // CommonJS runs the same wherever the file is copied, with or without a package.json beside it.
  format: "cjs",
  mainFields: ["module", "main"],
  alias,
  plugins: [sideEffectFreeWorkspace, englishOnlyZod],
  minify: true,
  legalComments: "none",
  banner: { js: "#!/usr/bin/env node" },
});
chmodSync(outfile, 0o755);
// This package's own "type": "module" would make Node read the extension-less file as ESM.
writeFileSync("dist/package.json", '{ "type": "commonjs" }\n');
