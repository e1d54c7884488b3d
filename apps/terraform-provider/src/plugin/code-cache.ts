import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire, wrap } from "node:module";
import { dirname } from "node:path";
import { Script } from "node:vm";

const cacheOf = (file: string) => `${file}.v8-cache`;

function compile(file: string): Script {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheOf(file));
  } catch {
    // No cache (a build that skipped it): compiled as usual.
  }
  // V8 refuses a cache made by another version or for another source, and then compiles as usual.
  return new Script(wrap(readFileSync(file, "utf8")), { filename: file, cachedData });
}

function run(script: Script, file: string): unknown {
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}

/**
 * Loads a CommonJS bundle as require() would, with the V8 code cache the build
 * wrote beside it: compiling the provider's half-megabyte bundle is a large part
 * of every launch, and Node 20 keeps no compile cache of its own.
 */
export const requireWithCodeCache = (file: string): unknown => run(compile(file), file);

/**
 * Writes the code cache of `file` after loading it and running `warm` on its
 * exports, so that the functions a launch runs are in it too, not only the
 * top level; answers what `warm` made. Written aside and renamed: a launch
 * never reads half a cache.
 */
export async function writeCodeCache<T>(file: string, warm: (exports: unknown) => T | Promise<T>): Promise<T> {
  const script = new Script(wrap(readFileSync(file, "utf8")), { filename: file });
  const warmed = await warm(run(script, file));
  writeFileSync(`${cacheOf(file)}.next`, script.createCachedData());
  renameSync(`${cacheOf(file)}.next`, cacheOf(file));
  return warmed;
}
