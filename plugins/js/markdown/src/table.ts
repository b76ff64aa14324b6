// Markdown (GitHub-flavoured) pipe tables: parsing and aligned rendering.

export type Align = "left" | "center" | "right" | "none";

export interface Table {
  headers: string[];
  align: Align[];
  rows: string[][];
}

const width = (cell: string) => [...cell].length;
const escape = (cell: string) => cell.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

function pad(cell: string, w: number, align: Align): string {
  const gap = w - width(cell);
  if (align === "right") return " ".repeat(gap) + cell;
  if (align === "center") return " ".repeat(gap >> 1) + cell + " ".repeat(gap - (gap >> 1));
  return cell + " ".repeat(gap);
}

function rule(w: number, align: Align): string {
  const dashes = "-".repeat(Math.max(w, 3));
  if (align === "center") return ":" + dashes.slice(2) + ":";
  if (align === "right") return dashes.slice(1) + ":";
  if (align === "left") return ":" + dashes.slice(1);
  return dashes;
}

/** The table as Markdown, every column padded to its widest cell. */
export function render({ headers, align, rows }: Table): string {
  const cells = [headers, ...rows].map((r) => headers.map((_, i) => escape(r[i] ?? "")));
  const widths = headers.map((_, i) => Math.max(3, ...cells.map((r) => width(r[i]))));
  const line = (r: string[]) => "| " + r.map((c, i) => pad(c, widths[i], align[i] ?? "none")).join(" | ") + " |";
  const [head, ...body] = cells;
  return [line(head), "| " + widths.map((w, i) => rule(w, align[i] ?? "none")).join(" | ") + " |", ...body.map(line)].join("\n");
}

/** Splits one table line into cells, honouring `\|`. */
function split(line: string): string[] {
  const inner = line.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

const RULE = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

/** The first pipe table in `markdown`, or undefined if it has none. */
export function parse(markdown: string): Table | undefined {
  const lines = markdown.split(/\r?\n/);
  const at = lines.findIndex((l, i) => i > 0 && RULE.test(l) && lines[i - 1].includes("|"));
  if (at < 0) return undefined;
  const headers = split(lines[at - 1]);
  const align = split(lines[at]).map((r): Align =>
    r.startsWith(":") && r.endsWith(":") ? "center" : r.endsWith(":") ? "right" : r.startsWith(":") ? "left" : "none",
  );
  const rows: string[][] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.includes("|") || l.trim() === "") break;
    const r = split(l);
    rows.push(headers.map((_, i) => r[i] ?? ""));
  }
  return { headers, align, rows };
}
