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
//
// A plugin that imports `mcp-wasm-sdk/store` (the bundle imports
// wasi:keyvalue, esbuild's metafile says) is built against `plugin-full`
// plus `wasi:keyvalue/store` and `atomics` at 0.2.0-draft2, in a world
// written to the build's temporary directory beside copies of the plugin
// WIT and the vendored keyvalue WIT (`wasi/keyvalue@0.2.0-draft2` under the
// WIT directory, else under this package's); any other plugin against
// `plugin-full` alone, so it imports no wasi:keyvalue.
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const sdkRoot = resolve(here, "..");
const sdkIndex = join(sdkRoot, "src", "index.js");
const sdkStore = join(sdkRoot, "src", "store.js");
const WORLD = "plugin-full";
// The wasi:keyvalue label `mcp-wasm-sdk/store` binds (its folder under a WIT
// directory's `wasi/`), and the world of a plugin that uses it.
const KEYVALUE = "keyvalue@0.2.0-draft2";
const STORE_WORLD = "plugin-full-store";
const storeWit = (version) => `package mcp-wasm-sdk:store;

/// \`plugin-full\` and the wasi:keyvalue interfaces mcp-wasm-sdk/store calls.
world ${STORE_WORLD} {
    include mcp-wasm-host:plugin/plugin-full@${version};
    import wasi:keyvalue/store@0.2.0-draft2;
    import wasi:keyvalue/atomics@0.2.0-draft2;
}
`;
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

/**
 * One ES module: the user's code, the SDK, and the world's four exports.
 * Returns whether it imports wasi:keyvalue (the plugin uses the store).
 */
async function bundle(entry, out) {
  const esbuild = await import("esbuild");
  const built = await esbuild.build({
    stdin: {
      // The SDK is imported by path and aliased, so the plugin's
      // `import ... from "mcp-wasm-sdk"` is the same module instance.
      contents: `import ${JSON.stringify(entry)};\nexport { tools, resources, prompts, completions } from "mcp-wasm-sdk";\n`,
      resolveDir: dirname(entry),
      sourcefile: "mcp-wasm-sdk-entry.js",
      loader: "js",
    },
    alias: { "mcp-wasm-sdk": sdkIndex, "mcp-wasm-sdk/store": sdkStore },
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    // The WIT interfaces are the component's imports, bound by componentize-js.
    external: ["mcp-wasm-host:*", "wasi:*"],
    outfile: out,
    metafile: true,
    logLevel: "warning",
  });
  return Object.values(built.metafile.outputs).some((o) =>
    o.imports.some((i) => i.external && i.path.startsWith("wasi:keyvalue/")),
  );
}

/**
 * The WIT directory and world for a plugin: `wit` and `plugin-full`; for one
 * that uses the store, a directory written under `stage` whose world adds
 * the wasi:keyvalue imports to `plugin-full`.
 */
async function worldWit(wit, stage, store) {
  if (!store) return { witPath: wit, worldName: WORLD };
  const keyvalue = [join(wit, "wasi", KEYVALUE), join(sdkRoot, "wit", "wasi", KEYVALUE), join(sdkRoot, "..", "wit", "wasi", KEYVALUE)]
    .find((dir) => existsSync(dir));
  if (!keyvalue) fail(`the wasi:keyvalue WIT (wasi/${KEYVALUE}) is missing from ${wit} and this package`);
  const plugin = await readFile(join(wit, "plugin.wit"), "utf8");
  const version = /^package\s+mcp-wasm-host:plugin@([^;\s]+)\s*;/m.exec(plugin)?.[1];
  if (!version) fail(`${join(wit, "plugin.wit")} declares no mcp-wasm-host:plugin version`);
  const out = join(stage, "wit");
  await mkdir(join(out, "deps", "plugin"), { recursive: true });
  await writeFile(join(out, "deps", "plugin", "plugin.wit"), plugin);
  await cp(keyvalue, join(out, "deps", "keyvalue"), { recursive: true });
  await writeFile(join(out, "store.wit"), storeWit(version));
  return { witPath: out, worldName: STORE_WORLD };
}

async function build(entry, out, witArg) {
  entry = resolve(entry);
  if (!existsSync(entry)) fail(`${entry} not found`);
  const wit = findWit(entry, witArg);
  const stage = await mkdtemp(join(tmpdir(), "mcp-wasm-sdk-"));
  try {
    const js = join(stage, "plugin.js");
    const store = await bundle(entry, js);
    const { componentize } = await import("@bytecodealliance/componentize-js");
    const { component } = await componentize({
      sourcePath: js,
      ...(await worldWit(wit, stage, store)),
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
