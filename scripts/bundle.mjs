// One way to bundle a command of this workspace into a single file that starts
// fast (the vigil CLI, the Terraform provider): every call a script or
// Terraform makes starts a process, so what it loads at start-up is what users
// feel. Used by apps/cli/build.mjs and apps/terraform-provider/build.mjs.
import { build } from "esbuild";

const packages = new URL("../packages/", import.meta.url).pathname;

/**
 * The workspace packages from their TypeScript sources, so the bundle takes
 * their dependencies' ES modules (which esbuild can prune) rather than CommonJS.
 */
const alias = {
  "@vigil/domain": `${packages}domain/src/index.ts`,
  "@vigil/client": `${packages}client/src/index.ts`,
  "@vigil/proto/account": `${packages}proto/src/account.ts`,
  "@vigil/proto/notification": `${packages}proto/src/notification.ts`,
  "@vigil/proto/status-page": `${packages}proto/src/status-page.ts`,
  "@vigil/proto/account": `${packages}proto/src/account.ts`,
  "@vigil/proto": `${packages}proto/src/index.ts`,
};
const workspaceSource = /[\\/]packages[\\/](domain|client|proto)[\\/]src[\\/]/;

/**
 * The workspace packages' modules only define things: what a command does not
 * use of them is left out rather than evaluated at every launch.
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

/** zod bundles error messages in 40-odd languages; Vigil speaks English only (a quarter of a bundle otherwise). */
const englishOnlyZod = {
  name: "english-only-zod",
  setup(build) {
    build.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', loader: "js" }));
  },
};

/**
 * Bundles `entry` into `outfile` for Node 20: "esm" keeps an ES module (with a
 * `require` for the CommonJS dependencies), "cjs" a file that runs the same
 * wherever it is copied.
 */
export async function bundle({ entry, outfile, format, banner = "", minify = false }) {
  const requireShim = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format,
    mainFields: ["module", "main"],
    alias,
    plugins: [sideEffectFreeWorkspace, englishOnlyZod],
    minify,
    legalComments: "none",
    banner: { js: [banner, format === "esm" ? requireShim : ""].filter(Boolean).join("\n") },
    logLevel: "warning",
  });
}
