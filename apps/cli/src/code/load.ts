import { readFile } from "node:fs/promises";
import { text as readStream } from "node:stream/consumers";
import { fieldPath } from "@vigil/domain";
import { LineCounter, isPair, isScalar, isSeq, parseDocument, visit, type Document } from "yaml";
import { CliError } from "../failures.js";
import { fileSchema, monitorEntrySchema, type FileProblem, type VigilFile } from "./file-schema.js";
import { referenceProblems } from "./references.js";

/** A file that cannot be used: every problem with its line, column and field. */
export class FileError extends CliError {
  constructor(source: string, problems: { line: number; col: number; field: string; rule: string }[]) {
    const lines = problems.map((p) => `${source}:${p.line}:${p.col}: ${p.field ? `${p.field}: ` : ""}${p.rule}`);
    super(`${source} has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}:\n${lines.join("\n")}`);
  }
}

interface Located {
  offset: number;
  path: (string | number)[];
  rule: string;
}

/** `${NAME}` takes an environment variable; `$${NAME}` is the text `${NAME}` itself. */
const REFERENCE = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The field path of a node from its ancestry, as the visitor gives it: pair keys and list positions. */
function fieldPathOf(ancestry: readonly unknown[], node: unknown): (string | number)[] {
  const chain = [...ancestry, node];
  return chain.flatMap((step, index): (string | number)[] => {
    if (isPair(step) && isScalar(step.key)) return [String(step.key.value)];
    if (isSeq(step)) return [step.items.indexOf(chain[index + 1] as never)];
    return [];
  });
}

/** Replaces variable references in values (never in keys); unset variables are problems at their line. */
function interpolate(doc: Document, env: NodeJS.ProcessEnv, problems: Located[]): void {
  visit(doc, {
    Scalar(key, node, ancestry) {
      if (key === "key" || typeof node.value !== "string" || !node.value.includes("${")) return;
      node.value = node.value.replace(REFERENCE, (whole, escaped: string | undefined, name: string) => {
        if (escaped) return whole.slice(1);
        const value = env[name];
        if (value !== undefined) return value;
        problems.push({ offset: node.range?.[0] ?? 0, path: fieldPathOf(ancestry, node), rule: `uses \${${name}}, but the environment variable ${name} is not set` });
        return whole;
      });
    },
  });
}

/** Where in the text the value at `path` is, or its nearest parent that exists. */
function offsetOf(doc: Document, path: readonly (string | number)[]): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return node.range[0];
  }
  return 0;
}

/**
 * Reads and checks a vigil.yaml: YAML syntax, environment variables, the
 * file's shape and every field's rule, and the references between entries.
 * @throws FileError listing every problem with its line
 */
export async function loadFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<VigilFile> {
  let text: string;
  try {
    text = path === "-" ? await readStream(process.stdin) : await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return parseFile(text, path === "-" ? "<stdin>" : path, env);
}

export function parseFile(text: string, source: string, env: NodeJS.ProcessEnv): VigilFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => lineCounter.linePos(offset);
  if (doc.errors.length > 0) {
    throw new FileError(
      source,
      doc.errors.map((error) => ({ ...at(error.pos[0]), field: "", rule: `YAML: ${error.message.split("\n")[0]}` })),
    );
  }
  const located: Located[] = [];
  interpolate(doc, env, located);
  const fail = () => {
    throw new FileError(
      source,
      located.sort((a, b) => a.offset - b.offset).map(({ offset, path, rule }) => ({ ...at(offset), field: fieldPath("", path), rule })),
    );
  };
  if (located.length > 0) fail();

  const parsed = fileSchema.safeParse(doc.toJS() ?? {});
  const problems: FileProblem[] = parsed.success
    ? referenceProblems(parsed.data)
    : parsed.error.issues.flatMap((issue) => {
        const path = issue.path as (string | number)[];
        // Each unknown field is shown where it is written.
        if (issue.code === "unrecognized_keys") return issue.keys.map((key) => ({ path: [...path, key], rule: "is not a field here (see `vigil schema`)" }));
        // An entry key that breaks its rule: the rule, not zod's "Invalid key in record".
        if (issue.code === "invalid_key") return issue.issues.map((inner) => ({ path, rule: describeIssue(inner) }));
        return [{ path, rule: describeIssue(issue) }];
      });
  for (const problem of problems) located.push({ offset: offsetOf(doc, problem.path), path: [...problem.path], rule: problem.rule });
  if (located.length > 0) fail();
  return (parsed as { data: VigilFile }).data;
}

/** zod's words for structural problems, put the way the API's rules are. */
function describeIssue(issue: { code: string; message: string; input?: unknown }): string {
  if (issue.code === "invalid_union" && issue.message.includes("discriminator")) return `type must be one of ${monitorEntrySchema.options.map((o) => o.shape.type.value).join(", ")}`;
  if (issue.input === undefined && issue.code === "invalid_type") return "is required";
  return issue.message;
}
