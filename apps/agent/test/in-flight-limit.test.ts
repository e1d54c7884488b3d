import { loadConfig } from "../src/config";
import {
  CHECK_MEMORY_BYTES,
  HEAP_SHARE_FOR_CHECKS,
  MAX_IN_FLIGHT,
  RESERVED_FILES,
  chooseInFlightLimit,
  openFileLimitOf,
} from "../src/in-flight-limit";

const MiB = 2 ** 20;
const GiB = 2 ** 30;

describe("the open-file limit", () => {
  const limits = (soft: string, hard: string) =>
    [
      "Limit                     Soft Limit           Hard Limit           Units     ",
      "Max processes             94868                94868                processes ",
      `Max open files            ${soft.padEnd(21)}${hard.padEnd(21)}files     `,
      "Max locked memory         8388608              8388608              bytes     ",
    ].join("\n");

  it("is the soft limit of /proc/<pid>/limits", () => {
    expect(openFileLimitOf(limits("1024", "524288"))).toBe(1024);
    expect(openFileLimitOf(limits("unlimited", "unlimited"))).toBe(Infinity);
    expect(openFileLimitOf("Max processes 10 10 processes")).toBeUndefined();
  });
});

describe("the in-flight limit", () => {
  it("leaves the reserve of files when they are scarcer than memory", () => {
    expect(chooseInFlightLimit(undefined, { openFiles: 1024, heapBytes: 4 * GiB })).toEqual({
      limit: 1024 - RESERVED_FILES,
      boundBy: "open_files",
      byOpenFiles: 1024 - RESERVED_FILES,
      byMemory: Math.floor((4 * GiB * HEAP_SHARE_FOR_CHECKS) / CHECK_MEMORY_BYTES),
    });
  });

  it("gives each check its memory budget from the heap when memory is scarcer", () => {
    const chosen = chooseInFlightLimit(undefined, { openFiles: 1_048_576, heapBytes: 256 * MiB });
    expect(chosen.boundBy).toBe("memory");
    expect(chosen.limit).toBe(Math.floor((256 * MiB * HEAP_SHARE_FOR_CHECKS) / CHECK_MEMORY_BYTES));
    // A check may hold a whole 1 MiB body: 256 MiB of heap holds fewer than 192 of them.
    expect(chosen.limit).toBeLessThan(192);
    expect(chosen.limit).toBeGreaterThan(20);
  });

  it("stops at the cap when both allow more", () => {
    expect(chooseInFlightLimit(undefined, { openFiles: Infinity, heapBytes: 64 * GiB })).toMatchObject({ limit: MAX_IN_FLIGHT, boundBy: "cap" });
  });

  it("runs at least one check however few files are left", () => {
    expect(chooseInFlightLimit(undefined, { openFiles: 100, heapBytes: 4 * GiB })).toMatchObject({ limit: 1, boundBy: "open_files" });
  });

  it("takes CONCURRENCY as it is, even above what the files allow", () => {
    expect(chooseInFlightLimit(5_000, { openFiles: 1024, heapBytes: 4 * GiB })).toMatchObject({
      limit: 5_000,
      boundBy: "CONCURRENCY",
      byOpenFiles: 1024 - RESERVED_FILES,
    });
  });
});

describe("CONCURRENCY", () => {
  const env = (concurrency: string | undefined) => ({ REGION: "hostA-ams", CONCURRENCY: concurrency });

  it("is unset (derived) by default, and taken up to the cap", () => {
    expect(loadConfig(env(undefined)).concurrency).toBeUndefined();
    expect(loadConfig(env("")).concurrency).toBeUndefined();
    expect(loadConfig(env(String(MAX_IN_FLIGHT))).concurrency).toBe(MAX_IN_FLIGHT);
  });

  it.each(["0", "10001", "1.5", "many"])("refuses %s, naming the variable and the range", (value) => {
    expect(() => loadConfig(env(value))).toThrow(
      `CONCURRENCY: must be a whole number from 1 to ${MAX_IN_FLIGHT}; leave it unset to let the agent derive it from its open-file limit and memory`,
    );
  });
});
