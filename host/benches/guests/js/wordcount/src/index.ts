// wordcount: the `languages` benchmark's TypeScript probe. It implements
// `word_count` exactly as plugins/testing/wordcount does in Rust (the floor),
// so the benchmark compares languages and not tools.
import { defineTool, log, s } from "mcp-wasm-sdk";

// The text on which word_count logs it first, as every probe does:
// host/benches/languages.rs holds calls alive on that log line.
const HOLD = "hold: log this line";

defineTool(
  {
    name: "word_count",
    description: "Counts the words, lines and characters of a text.",
    inputSchema: s.object({ text: s.string().describe("The text to measure.") }),
    outputSchema: s.object({ words: s.integer(), lines: s.integer(), chars: s.integer() }),
  },
  ({ text }) => {
    if (text === HOLD) log.info(HOLD);
    return {
      words: text.split(/\s+/).filter((w) => w.length > 0).length,
      lines: text.length === 0 ? 0 : text.replace(/\r?\n$/, "").split(/\r?\n/).length,
      chars: [...text].length,
    };
  },
);
