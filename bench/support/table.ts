// The benchmarks' Markdown tables.

/** A column's title; `right` aligns its figures to the right. */
export type Column = string | { title: string; right: true };

/** The lines of a Markdown table. */
export function markdownTable(columns: Column[], rows: (string | number)[][]): string[] {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [
    line(columns.map((c) => (typeof c === "string" ? c : c.title))),
    `|${columns.map((c) => (typeof c === "string" ? "---" : "---:")).join("|")}|`,
    ...rows.map(line),
  ];
}

export const right = (title: string): Column => ({ title, right: true });
