// Benchmarks measure the built code (tsc's dist/), as `node apps/*/dist/main.js` runs it, not the
// sources tsx would compile on the fly (esbuild's keepNames adds a call per closure created, and
// source maps make every Error.stack read cost more). They refuse a dist/ older than its sources.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./doc";

/** For processes that load built code under tsx: without the workspace's path mapping, @vigil/* resolve to dist/. */
export const DIST_TSCONFIG = path.join(ROOT, "bench/tsconfig.dist.json");

/** The newest modification time of a file under `dir`. */
const newest = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? newest(full) : statSync(full).mtimeMs;
    }),
  );

/** Throws unless every workspace package in `packages` (e.g. "packages/checks") was built after its last source change. */
export function assertBuilt(...packages: string[]): void {
  for (const relative of packages) {
    const dir = path.join(ROOT, relative);
    // tsc writes every output file on each build, so the newest one tells when it last ran.
    if (newest(path.join(dir, "src")) > newest(path.join(dir, "dist"))) {
      throw new Error(`${relative}/dist is older than its sources: run pnpm exec turbo run build`);
    }
  }
}
