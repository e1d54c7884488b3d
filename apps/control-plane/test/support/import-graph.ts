import { resolve } from "node:path";
import madge from "madge";

/**
 * Prints, as JSON, what madge finds of the imports between the workspace's own
 * modules (apps and packages, type-only imports included): the circles, and
 * the imports it could not resolve. Run as its own process by
 * import-circles.test.ts, because madge parses with TypeScript, which runs
 * several times slower inside Jest's module sandbox.
 */

const root = resolve(__dirname, "../../../..");

void madge(["apps", "packages"], {
  baseDir: root,
  fileExtensions: ["ts", "tsx"],
  // Built output, tests and generated code (Protobuf, Prisma's client) are not the workspace's own modules.
  excludeRegExp: [/(^|\/)(node_modules|dist|test|gen|generated)\//],
  // The root tsconfig's paths take @vigil/* to the packages' sources, so circles between packages count too.
  tsConfig: resolve(root, "tsconfig.json"),
  detectiveOptions: { ts: { skipTypeImports: false } },
}).then((graph) => {
  process.stdout.write(JSON.stringify({ imports: graph.obj(), circles: graph.circular(), unresolved: graph.warnings().skipped }));
});
