// Builds the vigil command as one ES module (dist/main.js). A command starts
// for every call a script makes, so start-up time matters: one file, and the
// workspace's packages taken from their TypeScript sources so that their
// dependencies' ES modules (zod, @bufbuild/protobuf) can be tree-shaken,
// roughly halve it against loading the compiled packages file by file.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = (path) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const SOURCES = {
  "@vigil/client": root("packages/client/src/index.ts"),
  "@vigil/domain": root("packages/domain/src/index.ts"),
  "@vigil/proto": root("packages/proto/src/index.ts"),
  "@vigil/proto/notification": root("packages/proto/src/notification.ts"),
  "@vigil/proto/status-page": root("packages/proto/src/status-page.ts"),
};

await build({
  entryPoints: [fileURLToPath(new URL("src/main.ts", import.meta.url))],
  outfile: fileURLToPath(new URL("dist/main.js", import.meta.url)),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  mainFields: ["module", "main"],
  // CommonJS dependencies (commander) require Node's modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  plugins: [
    {
      name: "workspace-sources",
      setup(build) {
        build.onResolve({ filter: /^@vigil\// }, (args) => {
          const path = SOURCES[args.path];
          if (!path) return { errors: [{ text: `${args.path} has no source entry in apps/cli/build.mjs` }] };
          return { path };
        });
      },
    },
  ],
  logLevel: "warning",
});
