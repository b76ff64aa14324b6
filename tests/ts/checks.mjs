// What the two TypeScript SDK client scripts check and record alike:
// client.mjs (@modelcontextprotocol/sdk 1.x) and client-v2.mjs
// (@modelcontextprotocol/client 2.x). This module imports no SDK; each script
// hands in what is its SDK's own (its JSON-RPC error class, its client).
// Holds: the options both take, the tool calls both make and their checks,
// the progress check on what the server sent beneath the SDK, and the run
// with its time limit, summary and exit status.

import { readFileSync } from 'node:fs';

export const MODERN = '2026-07-28';
export const HANDSHAKE_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const SCHEMA_ERRORS_AS_RESULTS_FROM = '2025-11-25';
const INVALID_PARAMS = -32602;
// Passed on to a stdio server when set, on top of the SDK's default environment.
// The SDK gives the server only a default environment (HOME, PATH...): a
// test's `--wait-for-load` by environment would otherwise never reach it.
const PASSED_ENV = ['RUST_LOG', 'RUST_BACKTRACE', 'MCP_WASM_HOST_CACHE_DIR', 'MCP_WASM_HOST_WAIT_FOR_LOAD'];

class CheckFailed extends Error {}
export class Usage extends Error {}

export function fail(message) {
  throw new CheckFailed(message);
}

// Parses the options both scripts take (--url, --stdio, --page-size,
// --expect-tools, --timeout) into `a`, on top of its own fields. `option(arg,
// value)` takes a script's own option and says whether it knew it (`value()`
// reads its value); `validate(a)` checks them once all are read.
export function parseArgs(argv, a, option, validate) {
  Object.assign(a, { pageSize: null, expectTools: null, timeout: 60, url: null, stdio: null });
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Usage(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case '--url': a.url = value(); break;
      case '--stdio':
        if (i + 1 >= argv.length) throw new Usage('--stdio needs a command');
        a.stdio = { command: argv[i + 1], args: argv.slice(i + 2) };
        i = argv.length;
        break;
      case '--page-size': a.pageSize = Number(value()); break;
      case '--expect-tools': a.expectTools = Number(value()); break;
      case '--timeout': a.timeout = Number(value()); break;
      default:
        if (!option(arg, value)) throw new Usage(`unknown argument ${arg}`);
    }
  }
  if ((a.url === null) === (a.stdio === null)) throw new Usage('give exactly one of --url URL and --stdio BIN ARG...');
  validate(a);
  for (const [name, n] of [['--page-size', a.pageSize], ['--expect-tools', a.expectTools], ['--timeout', a.timeout]]) {
    if (n !== null && !(Number.isFinite(n) && n > 0)) throw new Usage(`${name} must be a positive number`);
  }
  return a;
}

// The environment of a stdio server: the SDK's default one (`env`) and the
// variables of ours that the server reads.
export function stdioEnv(env) {
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

export function text(result) {
  return (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

// Calls tool `name`, which must fail with JSON-RPC error -32602 (an
// `RpcError`, the SDK's class for it).
async function expectRpcError(client, RpcError, name, args, what) {
  let result;
  try {
    result = await client.callTool({ name, arguments: args });
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    if (e.code !== INVALID_PARAMS) fail(`${what}: expected JSON-RPC error ${INVALID_PARAMS}, got ${e.code}: ${e.message}`);
    return { kind: 'jsonrpc_error', code: e.code, message: e.message };
  }
  fail(`${what}: expected JSON-RPC error ${INVALID_PARAMS}, got a result (isError ${result.isError}): ${text(result)}`);
}

// The tool calls every run makes at revision `negotiated`: `structured`
// {"text": "a b"} (the SDK checks its structuredContent against the output
// schema, and so does this), `structured` {"text": 5}, which breaks the
// input schema (before 2025-11-25: JSON-RPC error -32602; from 2025-11-25
// on: a result with isError true), and the unknown tool `unknownTool`
// (-32602). Returns what the run's summary says of them.
export async function callTools(client, RpcError, negotiated, unknownTool) {
  const ok = await client.callTool({ name: 'structured', arguments: { text: 'a b' } });
  if (ok.isError) fail(`structured {"text": "a b"} failed: ${text(ok)}`);
  const want = JSON.stringify(sortKeys({ text: 'a b', bytes: 3, words: ['a', 'b'] }));
  const got = JSON.stringify(sortKeys(ok.structuredContent ?? null));
  if (got !== want) fail(`structured: structuredContent ${got}, expected ${want}`);

  const what = `structured {"text": 5} (breaks the input schema) at ${negotiated}`;
  let invalid;
  if (negotiated >= SCHEMA_ERRORS_AS_RESULTS_FROM) {
    let bad;
    try {
      bad = await client.callTool({ name: 'structured', arguments: { text: 5 } });
    } catch (e) {
      if (e instanceof RpcError) fail(`${what}: expected a result with isError true, got JSON-RPC error ${e.code}: ${e.message}`);
      throw e;
    }
    if (bad.isError !== true) fail(`${what}: expected isError true, got a result: ${text(bad)}`);
    invalid = { kind: 'is_error_result', text: text(bad) };
  } else {
    invalid = await expectRpcError(client, RpcError, 'structured', { text: 5 }, what);
  }

  const unknown = await expectRpcError(client, RpcError, unknownTool, {}, `unknown tool at ${negotiated}`);
  return { structured_content: ok.structuredContent, invalid_arguments: invalid, unknown_tool: unknown };
}

// An `onprogress` for a call, and what it was handed.
export function progressRecorder() {
  const seen = [];
  const onprogress = (p) => seen.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null });
  return { seen, onprogress };
}

// The progress notifications among `received` (every message the transport
// received, in order) for `request`'s token, as `progress/total` strings:
// those before its response, and how many came after it.
export function progressOnWire(received, request) {
  const token = request.params?._meta?.progressToken;
  const before = [];
  let answered = false;
  let late = 0;
  for (const m of received) {
    if (m.id === request.id && m.method === undefined && (m.result !== undefined || m.error !== undefined)) answered = true;
    if (m.method === 'notifications/progress' && token !== undefined && m.params?.progressToken === token) {
      if (answered) late += 1;
      else before.push(`${m.params.progress}/${m.params.total}`);
    }
  }
  return { token, before, late };
}

// Checks the progress of the `log_progress` call at `negotiated`: on the
// wire (from `progressOnWire`), 0, 50, 100 of 100 for the request's token,
// all before the response; handed to onprogress (`progress`, from
// `progressRecorder`), a prefix of those. The SDK (1.x and v2 alike) drops
// progress that arrives in the same read as the response (typescript-sdk
// issue #2580: it runs notification handlers in a microtask but retires the
// request's progress handler at once), so it may see fewer, but never others.
// Returns what the run's summary says of them.
export function checkProgress(negotiated, wire, progress) {
  const wantProgress = '0/100 50/100 100/100';
  if (wire.token === undefined) fail('the SDK sent no progressToken although onprogress was given');
  if (wire.before.join(' ') !== wantProgress || wire.late !== 0) {
    fail(`log_progress at ${negotiated}: the server sent progress [${wire.before.join(' ')}] before the response and ${wire.late} after, expected ${wantProgress} before it`);
  }
  const seen = progress.map((p) => `${p.progress}/${p.total}`);
  if (seen.join(' ') !== wire.before.slice(0, seen.length).join(' ')) {
    fail(`log_progress at ${negotiated}: onprogress saw [${seen.join(' ')}], not a prefix of what the server sent [${wire.before.join(' ')}]`);
  }
  return { wire_progress: wire.before, onprogress: progress };
}

// The version of the npm package `name` installed beside this module.
export function packageVersion(name) {
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

// The summary of `runs`, each checked in turn by `check(a, run)` and listed
// under `key`, after what the SDK says of itself: `sdk` is its npm package,
// its LATEST_PROTOCOL_VERSION and its SUPPORTED_PROTOCOL_VERSIONS.
export async function summarize(a, sdk, key, runs, check) {
  const results = [];
  for (const r of runs) results.push(await check(a, r));
  return {
    ok: true,
    sdk: `${sdk.package} ${packageVersion(sdk.package)}`,
    sdk_latest_protocol_version: sdk.latest,
    sdk_supported_protocol_versions: sdk.supported,
    transport: a.url !== null ? 'http' : 'stdio',
    [key]: results,
  };
}

// Runs a client script: `parse` reads the arguments, `run(a)` makes the
// summary, printed as one JSON line on stdout (exit 0) unless it takes
// longer than --timeout; a failed check is printed as `NAME: FAIL: reason`
// on stderr (exit 1), any other error as `describe(e)` says, and bad usage
// exits 2. Exits when done, so that a stuck transport cannot keep the
// process alive after the verdict.
export async function runClient(name, parse, run, describe) {
  process.exitCode = await verdict(name, parse, run, describe);
  process.exit(process.exitCode);
}

async function verdict(name, parse, run, describe) {
  let a;
  try {
    a = parse(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof Usage)) throw e;
    process.stderr.write(`${name}: ${e.message}\n`);
    return 2;
  }
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new CheckFailed(`timed out after ${a.timeout} s (is the server answering?)`)), a.timeout * 1000);
  });
  try {
    const summary = await Promise.race([run(a), timeout]);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return 0;
  } catch (e) {
    const reason = e instanceof CheckFailed ? e.message : describe(e);
    process.stderr.write(`${name}: FAIL: ${reason}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}
