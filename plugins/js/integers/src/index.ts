// A test plugin: echoes an integer of each width the SDK's `s` builds, so
// the tests can see each edge arrive exactly (a 64-bit one as a BigInt read
// from its text) or be refused naming the bounds, never rounded.
import { defineTool, s, type Schema } from "mcp-wasm-sdk";

function echo<T>(name: string, schema: Schema<T>) {
  defineTool(
    {
      name: `echo-${name}`,
      description: `Return the ${name} it is given, and its JavaScript type.`,
      inputSchema: s.object({ n: schema }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ n }) => ({ result: n, type: typeof n }),
  );
}

echo("int32", s.int32());
echo("uint32", s.uint32());
echo("int64", s.int64());
echo("uint64", s.uint64());
echo("integer", s.integer());

defineTool(
  {
    name: "sum-uint64",
    description: "Add up a list of 64-bit unsigned integers, exactly.",
    inputSchema: s.object({ items: s.array(s.uint64()) }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  ({ items }) => ({ sum: items.reduce((a, b) => a + b, 0n) }),
);
