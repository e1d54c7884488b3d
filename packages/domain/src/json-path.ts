import { jsonpath, type JSONPathQuery, type JSONValue } from "json-p3";
import { wellFormed } from "./rules";

/**
 * JSONPath queries (RFC 9535) of JSON body assertions, through json-p3: it
 * passes the JSONPath Compliance Test Suite, has no dependencies and runs in
 * the browser too, so the console refuses what the API refuses.
 */
function compileJsonPath(path: string): JSONPathQuery {
  return jsonpath.compile(path);
}

/**
 * Why `path` is not a JSONPath query, or undefined when it is one. json-p3's
 * message ends by quoting the query and an offset; the offset is kept, the
 * query (the caller's own text, up to 1 KiB) is not.
 */
export function jsonPathProblem(path: string): string | undefined {
  try {
    compileJsonPath(path);
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    const at = /:(\d+)\)$/.exec(message)?.[1];
    // json-p3 quotes the offending UTF-16 unit, which may be half of a pair.
    const reason = wellFormed(message.replace(/\s*\('.*\)$/s, ""));
    return `must be a JSONPath query (RFC 9535) such as $.status: ${reason}${at === undefined ? "" : ` at offset ${at}`}`;
  }
}

/** The values of the nodes `path` selects in a parsed JSON document, in document order. */
export function queryJson(path: string, document: unknown): unknown[] {
  return compileJsonPath(path)
    .query(document as JSONValue)
    .values();
}
