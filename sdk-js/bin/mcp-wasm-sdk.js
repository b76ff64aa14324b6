#!/usr/bin/env node
// mcp-wasm-sdk build ENTRY -o OUT.wasm [--wit DIR]
//
// Bundles ENTRY (TypeScript or JavaScript) and mcp-wasm-sdk with esbuild into
// the single ES module componentize-js needs, then makes it a component of
// the `plugin-full` world (tools, and resources, prompts and completions,
// which are empty unless the plugin defines some). The WIT directory is `--wit DIR`, else
// $MCP_WASM_HOST_WIT, else the first `wit/plugin.wit` found walking up from
// ENTRY's directory, else the copy this package ships (`wit/`, or the
// repository's when the package is used from its source tree).
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const sdkRoot = resolve(here, "..");
const sdkIndex = join(sdkRoot, "src", "index.js");
const WORLD = "plugin-full";
const usage = "usage: mcp-wasm-sdk build ENTRY -o OUT.wasm [--wit DIR]";

function fail(message) {
  console.error(`mcp-wasm-sdk: ${message}`);
  process.exit(1);
}

/** The first `DIR/wit` holding plugin.wit, walking up from `start`. */
function witAbove(start) {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "wit", "plugin.wit"))) return join(dir, "wit");
    if (dirname(dir) === dir) return undefined;
  }
}

function findWit(entry, given) {
  const wit = given ?? process.env.MCP_WASM_HOST_WIT ?? witAbove(dirname(entry)) ?? witAbove(sdkRoot);
  if (!wit) fail("no WIT found: pass --wit DIR (the directory holding plugin.wit) or set MCP_WASM_HOST_WIT");
  if (!existsSync(join(wit, "plugin.wit"))) fail(`${wit} holds no plugin.wit`);
  return resolve(wit);
}

/** One ES module: the user's code, the SDK, and the world's four exports. */
async function bundle(entry, out) {
  const esbuild = await import("esbuild");
  await esbuild.build({
    stdin: {
      // The SDK is imported by path and aliased, so the plugin's
      // `import ... from "mcp-wasm-sdk"` is the same module instance.
      contents: `import ${JSON.stringify(entry)};\nexport { tools, resources, prompts, completions } from "mcp-wasm-sdk";\n`,
      resolveDir: dirname(entry),
      sourcefile: "mcp-wasm-sdk-entry.js",
      loader: "js",
    },
    alias: { "mcp-wasm-sdk": sdkIndex },
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    // The WIT interfaces are the component's imports, bound by componentize-js.
    external: ["mcp-wasm-host:*", "wasi:*"],
    outfile: out,
    logLevel: "warning",
  });
}

async function build(entry, out, witArg) {
  entry = resolve(entry);
  if (!existsSync(entry)) fail(`${entry} not found`);
  const wit = findWit(entry, witArg);
  const stage = await mkdtemp(join(tmpdir(), "mcp-wasm-sdk-"));
  try {
    const js = join(stage, "plugin.js");
    await bundle(entry, js);
    const { componentize } = await import("@bytecodealliance/componentize-js");
    const { component } = await componentize({
      sourcePath: js,
      witPath: wit,
      worldName: WORLD,
      // No wasi:http/incoming-handler export: a plugin is not an HTTP
      // server. `fetch` (wasi:http/outgoing-handler) stays.
      disableFeatures: ["fetch-event"],
    });
    await writeFile(out, component);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  const size = (await stat(out)).size;
  console.error(`mcp-wasm-sdk: ${out}: ${(size / 1e6).toFixed(1)} MB (WIT: ${wit})`);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: "string", short: "o" },
    wit: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(usage);
} else if (positionals[0] !== "build" || positionals.length !== 2 || !values.out) {
  fail(usage);
} else {
  await build(positionals[1], resolve(values.out), values.wit);
}
