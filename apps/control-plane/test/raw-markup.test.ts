import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Vigil's HTML is JSX rendered by React, which escapes every text and
 * attribute value; dangerouslySetInnerHTML is the one way around it. It may
 * carry only the pages' own constant style and script bodies (whose CSP
 * hashes are computed from the same constants), never anything a user or a
 * checked server wrote, but for Markdown people wrote on a status page once
 * markdownHtml (@vigil/domain markdown.ts, tested in markdown.test.ts) made it
 * HTML with every raw tag escaped. Beside import-circles.test.ts, a check of the
 * workspace's sources as a whole.
 */

const root = resolve(__dirname, "../../..");
const ALLOWED = /dangerouslySetInnerHTML=\{\{ __html: (STYLE|SCRIPT|FORM_STYLE|markdownHtml\(\w+\)) \}\}/;

function sources(): string[] {
  return ["apps", "packages"].flatMap((top) =>
    readdirSync(join(root, top), { recursive: true, encoding: "utf8" })
      .filter((path) => /\.tsx?$/.test(path) && !/(^|\/)(node_modules|dist|test)\//.test(path))
      .map((path) => join(top, path)),
  );
}

describe("Raw markup in the workspace's sources", () => {
  it("is only the pages' constant style and script bodies", () => {
    const uses = sources().flatMap((path) =>
      readFileSync(join(root, path), "utf8")
        .split("\n")
        .filter((line) => line.includes("dangerouslySetInnerHTML") && !line.trim().startsWith("*"))
        .map((line) => ({ path, line: line.trim() })),
    );
    expect(uses.length).toBeGreaterThan(0);
    expect(uses.filter(({ line }) => !ALLOWED.test(line))).toEqual([]);
  });
});
