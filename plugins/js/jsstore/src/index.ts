// A test plugin: a counter and a notes tool written with the JavaScript
// SDK's store API (`mcp-wasm-sdk/store`) over wasi:keyvalue, as the guide's
// "Remembering things" shows them. host/tests/all/keyvalue_sdk/js.rs calls
// them through the real binary.
import { defineTool, s } from "mcp-wasm-sdk";
import { Bucket } from "mcp-wasm-sdk/store";

defineTool({ name: "count", description: "Count the calls of this tool, across calls and restarts." }, () => {
  const calls = Bucket.open("default").increment("calls");
  return `called ${calls} times`;
});

defineTool(
  { name: "add_note", description: "Add a note.", inputSchema: s.object({ text: s.string() }) },
  ({ text }) => {
    Bucket.open("notes").update("all", (old) => (old ? new TextDecoder().decode(old) : "") + `${text}\n`);
    return "noted";
  },
);

defineTool({ name: "notes", description: "The notes, one a line, oldest first." }, () => {
  return Bucket.open("notes").getString("all") ?? "";
});

defineTool(
  {
    name: "put",
    description: 'Set `key` of the bucket "notes" to `value`; every key of the bucket then, one a line.',
    inputSchema: s.object({ key: s.string(), value: s.string() }),
  },
  ({ key, value }) => {
    const notes = Bucket.open("notes");
    notes.set(key, value);
    return [...notes.keys()].sort().join("\n");
  },
);
