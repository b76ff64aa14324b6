// Markdown tables for a model: build one from rows, read one back as JSON,
// and sort one by a column, with every column aligned. It also serves the
// table syntax its tools read (resource `markdown://syntax/tables`) and a
// prompt, `tabulate`, that asks the model to put data into a table.
import { defineCompletion, definePrompt, defineResource, defineTool, resource, s, InvalidArguments } from "mcp-wasm-sdk";
import { parse, render, type Table } from "./table";

const alignment = s.enum(["left", "center", "right", "none"]);

function table(markdown: string): Table {
  const t = parse(markdown);
  if (!t) throw new InvalidArguments("no Markdown table found (a header line, then a line like `| --- | --- |`)");
  return t;
}

defineTool(
  {
    name: "format_table",
    title: "Format a Markdown table",
    description: "Render rows as a Markdown table with padded, aligned columns.",
    inputSchema: s.object({
      headers: s.array(s.string(), { minItems: 1 }).describe("The column names."),
      rows: s.array(s.array(s.union(s.string(), s.number(), s.boolean()))).describe("The rows, each a list of cells (strings, numbers, booleans)."),
      align: s.array(alignment).optional().describe("Each column's alignment; numbers default to right."),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    icons: [{ src: "https://mcp-wasm-host.example/icons/table.png", mimeType: "image/png", sizes: ["48x48"], theme: "light" }],
  },
  ({ headers, rows, align }) => {
    const cells = rows.map((r) => r.map((c) => (c === null ? "" : String(c))));
    const numeric = (i: number) => rows.length > 0 && rows.every((r) => typeof r[i] === "number");
    return render({ headers, rows: cells, align: headers.map((_, i) => align?.[i] ?? (numeric(i) ? "right" : "none")) });
  },
);

defineTool(
  {
    name: "parse_table",
    title: "Read a Markdown table",
    description: "Read the first Markdown table in a text as JSON: its headers and one object per row.",
    inputSchema: s.object({ markdown: s.string().describe("Text containing a Markdown pipe table.") }),
    outputSchema: s.object({
      headers: s.array(s.string()),
      rows: s.array(s.object({}, { additionalProperties: { type: "string" } })),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  ({ markdown }) => {
    const { headers, rows } = table(markdown);
    return { headers, rows: rows.map((r) => Object.fromEntries(headers.map((h, i) => [h, r[i]]))) };
  },
);

defineTool(
  {
    name: "sort_table",
    title: "Sort a Markdown table",
    description: "Sort the rows of a Markdown table by one column (numbers numerically, text alphabetically).",
    inputSchema: s.object({
      markdown: s.string().describe("Text containing a Markdown pipe table."),
      column: s.string().describe("The header of the column to sort by."),
      descending: s.boolean().optional().describe("Largest first (default: smallest first)."),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    // A long table takes a while: a client that supports tasks may run it as one.
    taskSupport: "optional",
  },
  ({ markdown, column, descending }) => {
    const t = table(markdown);
    const i = t.headers.indexOf(column);
    if (i < 0) throw new InvalidArguments(`no column ${JSON.stringify(column)}; the columns are ${t.headers.join(", ")}`);
    const num = (c: string) => Number(c.replace(/[,_\s]/g, ""));
    const numeric = t.rows.every((r) => r[i] !== "" && !Number.isNaN(num(r[i])));
    const order = (a: string[], b: string[]) => (numeric ? num(a[i]) - num(b[i]) : a[i] < b[i] ? -1 : a[i] > b[i] ? 1 : 0);
    t.rows.sort((a, b) => (descending ? order(b, a) : order(a, b)));
    return render(t);
  },
);

const SYNTAX_URI = "markdown://syntax/tables";
const SYNTAX = `# Markdown tables, as these tools read and write them

A table is a header line, a delimiter line, then one line per row:

| name  | qty | note        |
| :---- | --: | :---------: |
| apple |   3 | ripe        |

* Cells are separated by \`|\`; the outer pipes are optional.
* The delimiter line has one \`---\` per column: \`:---\` aligns left,
  \`---:\` right, \`:---:\` center, plain \`---\` leaves it to the reader.
* A \`|\` inside a cell is written \`\\|\`.
* \`parse_table\` and \`sort_table\` read the first such table in a text.
`;

defineResource({
  uri: SYNTAX_URI,
  name: "table_syntax",
  title: "Markdown table syntax",
  description: "The pipe-table syntax that format_table writes and parse_table and sort_table read.",
  mimeType: "text/markdown",
  text: SYNTAX,
});

const ORDERS = ["as given", "ascending", "descending"];

definePrompt(
  {
    name: "tabulate",
    title: "Put data into a Markdown table",
    description: "Asks the model to turn loose data (a list, CSV, prose) into a Markdown table with format_table.",
    arguments: [
      { name: "data", description: "The data to tabulate.", required: true },
      { name: "order", description: "How to order the rows: as given, ascending or descending by the first column." },
    ],
  },
  ({ data, order = "as given" }) => {
    if (!ORDERS.includes(order)) throw new InvalidArguments(`order is one of ${ORDERS.join(", ")}, not ${order}`);
    const sorting = order === "as given" ? "Keep the rows in the order given." : `Then sort it ${order} by the first column with sort_table.`;
    return [
      { role: "user", content: resource(SYNTAX_URI, { text: SYNTAX }, { mimeType: "text/markdown" }) },
      `Turn this data into a Markdown table: choose column headers, call format_table with the rows, and show the result. ${sorting}\n\n${data}`,
    ];
  },
);

defineCompletion({ prompt: "tabulate" }, "order", (value) => ORDERS.filter((o) => o.startsWith(value)));
