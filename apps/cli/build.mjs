// Builds the vigil command as one ES module (dist/main.js) that starts fast:
// a command starts for every call a script makes (see scripts/bundle.mjs).
import { fileURLToPath } from "node:url";
import { bundle } from "../../scripts/bundle.mjs";

await bundle({
  entry: fileURLToPath(new URL("src/main.ts", import.meta.url)),
  outfile: fileURLToPath(new URL("dist/main.js", import.meta.url)),
  format: "esm",
});
