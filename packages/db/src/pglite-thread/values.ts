/**
 * The thread sends every value as PostgreSQL's text, and rows as arrays; they become values here, on the calling
 * thread, with PGlite's own parsers, as PGlite itself does after a statement. Values made here are the caller's
 * own objects: ones made on another thread would arrive as that thread's copies, built outside the caller's
 * module sandbox where there is one (a test runner's), and compare unequal there to its own objects.
 */
import { types, type ParserOptions, type Results, type RowMode } from "@electric-sql/pglite";
import type { ThreadResults } from "./messages";

type Parse = (text: string) => unknown;

/** An array type and its element type, as PGlite reads them from pg_type when it opens. */
export interface ArrayType {
  oid: number;
  typarray: number;
}

/** The statement PGlite runs when it opens to learn the array types it parses. */
export const ARRAY_TYPES_SQL = `SELECT b.oid, b.typarray FROM pg_catalog.pg_type a
  LEFT JOIN pg_catalog.pg_type b ON b.oid = a.typelem WHERE a.typcategory = 'A' GROUP BY b.oid, b.typarray ORDER BY b.oid`;

export class ValueParsers {
  private readonly defaults = new Map<number, Parse>();

  constructor(arrayTypes: readonly ArrayType[]) {
    const elementOf = new Map(arrayTypes.map(({ oid, typarray }) => [typarray, oid]));
    for (const [typarray, element] of elementOf) {
      const parseElement: Parse = (text) => types.parseType(text, element);
      this.defaults.set(typarray, (text) => types.arrayParser(text, parseElement, typarray));
    }
  }

  /** The rows as PGlite would have returned them: parsed by the caller's parsers first, then by PGlite's. */
  results<T>(raw: ThreadResults, options: { rowMode?: RowMode; parsers?: ParserOptions } = {}): Results<T> {
    const parse = raw.fields.map(({ dataTypeID }) => this.parserFor(dataTypeID, options.parsers));
    const value = (text: string | null, column: number) => (text === null ? null : parse[column]!(text));
    const rows =
      options.rowMode === "array"
        ? raw.rows.map((cells) => cells.map(value))
        : raw.rows.map((cells) => {
            const row: Record<string, unknown> = {};
            raw.fields.forEach((field, column) => (row[field.name] = value(cells[column] ?? null, column)));
            return row;
          });
    return { ...raw, fields: raw.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })), rows: rows as T[] };
  }

  private parserFor(typeId: number, parsers: ParserOptions | undefined): Parse {
    const own = parsers?.[typeId];
    if (own) return (text) => own(text);
    return this.defaults.get(typeId) ?? ((text) => types.parseType(text, typeId));
  }
}
