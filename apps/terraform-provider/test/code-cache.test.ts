import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireWithCodeCache, writeCodeCache } from "../src/plugin/code-cache.js";

describe("the provider bundle's V8 code cache", () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "vigil-code-cache-"));
    file = join(dir, "bundle.cjs");
    await writeFile(file, "const double = (n) => n * 2; module.exports = { double, dir: __dirname, builtin: typeof require('node:path').join };\n");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("is written beside the bundle after running the warm-up on its exports", async () => {
    const warmed: number[] = [];
    writeCodeCache(file, (exports) => warmed.push((exports as { double(n: number): number }).double(21)));
    expect(warmed).toEqual([42]);
    expect((await stat(`${file}.v8-cache`)).size).toBeGreaterThan(0);
  });

  it("loads the bundle as require() would: its exports, __dirname and require", () => {
    writeCodeCache(file, () => undefined);
    expect(requireWithCodeCache(file)).toEqual({ double: expect.any(Function), dir, builtin: "function" });
  });

  it("loads a bundle without a cache", () => {
    expect((requireWithCodeCache(file) as { double(n: number): number }).double(4)).toBe(8);
  });

  it("ignores a cache made for other source: the bundle's own code runs", async () => {
    writeCodeCache(file, () => undefined);
    const staleCache = await readFile(`${file}.v8-cache`);
    await writeFile(file, "module.exports = { double: (n) => n * 3 };\n");
    expect(await readFile(`${file}.v8-cache`)).toEqual(staleCache);
    expect((requireWithCodeCache(file) as { double(n: number): number }).double(4)).toBe(12);
  });
});
