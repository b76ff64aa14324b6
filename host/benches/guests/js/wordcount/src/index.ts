// wordcount: the `languages` benchmark's TypeScript probe. It implements
// `word_count` exactly as plugins/testing/wordcount does in Rust (the floor),
// so the benchmark compares languages and not tools.
import { defineTool, s } from "mcp-wasm-sdk";

defineTool(
  {
    name: "word_count",
    description: "Counts the words, lines and characters of a text.",
    inputSchema: s.object({ text: s.string().describe("The text to measure.") }),
    outputSchema: s.object({ words: s.integer(), lines: s.integer(), chars: s.integer() }),
  },
  ({ text }) => ({
    words: text.split(/\s+/).filter((w) => w.length > 0).length,
    lines: text.length === 0 ? 0 : text.replace(/\r?\n$/, "").split(/\r?\n/).length,
    chars: [...text].length,
  }),
);
