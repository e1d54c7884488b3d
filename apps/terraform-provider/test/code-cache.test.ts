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

  it("is written beside the bundle once the warm-up on its exports has finished, and answers what it made", async () => {
    let finishWarmUp = () => undefined as void;
    const warmUpFinished = new Promise<void>((resolve) => (finishWarmUp = resolve));
    const warmed = writeCodeCache(file, async (exports) => {
      await warmUpFinished;
      return (exports as { double(n: number): number }).double(21);
    });
    await expect(stat(`${file}.v8-cache`)).rejects.toThrow("ENOENT");
    finishWarmUp();
    expect(await warmed).toBe(42);
    expect((await stat(`${file}.v8-cache`)).size).toBeGreaterThan(0);
  });

  it("loads the bundle as require() would: its exports, __dirname and require", async () => {
    await writeCodeCache(file, () => undefined);
    expect(requireWithCodeCache(file)).toEqual({ double: expect.any(Function), dir, builtin: "function" });
  });

  it("loads a bundle without a cache", () => {
    expect((requireWithCodeCache(file) as { double(n: number): number }).double(4)).toBe(8);
  });

  it("ignores a cache made for other source: the bundle's own code runs", async () => {
    await writeCodeCache(file, () => undefined);
    const staleCache = await readFile(`${file}.v8-cache`);
    await writeFile(file, "module.exports = { double: (n) => n * 3 };\n");
    expect(await readFile(`${file}.v8-cache`)).toEqual(staleCache);
    expect((requireWithCodeCache(file) as { double(n: number): number }).double(4)).toBe(12);
  });
});
