// The generated blocks of docs/benchmarks.md, shared by the benchmark scripts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { log } from "./run";

export const ROOT = path.resolve(__dirname, "../..");
export const DOCS = path.join(ROOT, "docs/benchmarks.md");

/** The generated block `key` of docs/benchmarks.md (between its markers), or undefined. */
export function readDocsBlock(key: string): string | undefined {
  const current = existsSync(DOCS) ? readFileSync(DOCS, "utf8") : "";
  const start = new RegExp(`<!-- bench:${key}:start[^>]*-->`).exec(current);
  const endAt = current.indexOf(`<!-- bench:${key}:end -->`);
  return start && endAt > start.index ? current.slice(start.index + start[0].length, endAt) : undefined;
}

/**
 * Replaces the generated block between `<!-- bench:<key>:start ... -->` and `<!-- bench:<key>:end -->`
 * in docs/benchmarks.md, keeping the rest of the file (which others edit too); when the block is
 * missing, appends a new section `## <title>` holding it at the end. With BENCH_NO_DOC set, every benchmark only prints.
 */
export function writeDocsBlock(key: string, title: string, writer: string, generated: string): void {
  if (process.env.BENCH_NO_DOC !== undefined) return log("BENCH_NO_DOC: docs/benchmarks.md left as it was");
  const startPattern = new RegExp(`<!-- bench:${key}:start[^>]*-->`);
  const end = `<!-- bench:${key}:end -->`;
  const block = `<!-- bench:${key}:start (written by ${writer}) -->\n${generated}\n${end}`;
  const current = existsSync(DOCS) ? readFileSync(DOCS, "utf8") : "# Benchmarks\n";
  const start = startPattern.exec(current);
  const endAt = current.indexOf(end);
  const next =
    start && endAt > start.index
      ? current.slice(0, start.index) + block + current.slice(endAt + end.length)
      : `${current.trimEnd()}\n\n## ${title}\n\n${block}\n`;
  writeFileSync(DOCS, next);
}
