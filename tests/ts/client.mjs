#!/usr/bin/env node
// Checks an mcp-wasm-host server with the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk 1.x: Client, StdioClientTransport,
// StreamableHTTPClientTransport), over stdio or Streamable HTTP, at the
// protocol revisions this client can speak.
//
// Usage:
//   node tests/ts/client.mjs [options] --url URL
//   node tests/ts/client.mjs [options] --stdio BIN ARG...   (--stdio comes last)
// Options:
//   --revision V     a revision to check (repeatable). `sdk` (the default when
//                    none is given, along with every handshake revision) runs
//                    the SDK exactly as shipped, which proposes its
//                    LATEST_PROTOCOL_VERSION. The SDK has no option to propose
//                    another revision, so for a dated V the transport under
//                    the SDK's Client rewrites the `protocolVersion` of the
//                    outgoing `initialize` request to V; everything else
//                    (the answer's check, the MCP-Protocol-Version header,
//                    results' parsing) is the SDK's own. The SDK 1.x speaks
//                    no 2026-07-28 (no `server/discover`), so that revision is
//                    refused here.
//   --page-size N    no tools/list page may hold more than N tools
//   --expect-tools N the server must list exactly N tools
//   --timeout S      limit for the whole run (default 60)
//   --header 'NAME: VALUE'  an HTTP header on every request (repeatable; with
//                    --url), e.g. 'Authorization: Bearer TOKEN'
//
// For each revision, one connection (over stdio a fresh server process):
// initialize; check the server answered that revision; list every tool over
// every page; call `structured` {"text": "a b"} (the SDK checks its
// structuredContent against the output schema); call `structured`
// {"text": 5}, which breaks the input schema (before 2025-11-25: JSON-RPC
// error -32602; from 2025-11-25 on: a result with isError true); call an
// unknown tool (-32602); `logging/setLevel debug` and call `log_progress`
// with `onprogress`: the server must send progress 0, 50, 100 of 100 for the
// request's token before the result (checked on the messages the transport
// under the SDK received), and `onprogress` must have seen a prefix of them
// (SDK 1.x loses those that arrive in the same read as the result,
// typescript-sdk issue #2580). The log messages received are reported.
// Set TS_CLIENT_TRACE=1 to print every message sent and received on stderr.
//
// Prints a one-line JSON summary on stdout and exits 0; on a failed check
// prints `ts-client: FAIL: reason` on stderr and exits 1 (2 for bad usage).
// The server's stderr passes through to ours.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';

const HANDSHAKE_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const MODERN = '2026-07-28';
const SCHEMA_ERRORS_AS_RESULTS_FROM = '2025-11-25';
const INVALID_PARAMS = -32602;
const UNKNOWN_TOOL = 'no_such_tool__ts_client';
const MAX_PAGES = 1000;
// Passed on to a stdio server when set, on top of the SDK's default environment.
const PASSED_ENV = ['RUST_LOG', 'RUST_BACKTRACE', 'MCP_WASM_HOST_CACHE_DIR'];

class CheckFailed extends Error {}
class Usage extends Error {}

function fail(message) {
  throw new CheckFailed(message);
}

function parseArgs(argv) {
  const a = { revisions: [], pageSize: null, expectTools: null, timeout: 60, url: null, stdio: null, headers: {} };
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
      case '--revision': a.revisions.push(value()); break;
      case '--page-size': a.pageSize = Number(value()); break;
      case '--expect-tools': a.expectTools = Number(value()); break;
      case '--timeout': a.timeout = Number(value()); break;
      case '--header': {
        const h = value();
        const at = h.indexOf(':');
        if (at < 1) throw new Usage(`--header wants 'NAME: VALUE', got ${h}`);
        a.headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
        break;
      }
      default: throw new Usage(`unknown argument ${arg}`);
    }
  }
  if ((a.url === null) === (a.stdio === null)) throw new Usage('give exactly one of --url URL and --stdio BIN ARG...');
  if (a.stdio !== null && Object.keys(a.headers).length > 0) throw new Usage('--header needs --url');
  if (a.revisions.length === 0) a.revisions = ['sdk', ...HANDSHAKE_REVISIONS];
  for (const r of a.revisions) {
    if (r === MODERN) {
      throw new Usage(`the TypeScript SDK ${sdkVersion()} speaks no ${MODERN} (it has no server/discover); its versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
    }
    if (r !== 'sdk' && !SUPPORTED_PROTOCOL_VERSIONS.includes(r)) {
      throw new Usage(`--revision ${r}: the SDK supports ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} (or 'sdk')`);
    }
  }
  for (const [name, n] of [['--page-size', a.pageSize], ['--expect-tools', a.expectTools], ['--timeout', a.timeout]]) {
    if (n !== null && !(Number.isFinite(n) && n > 0)) throw new Usage(`${name} must be a positive number`);
  }
  return a;
}

function sdkVersion() {
  const url = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

// A transport for the SDK's Client that passes everything through to `inner`,
// except that it proposes `revision` in the outgoing `initialize` (when set)
// and remembers the revision the server answered.
class ForcedRevision {
  constructor(inner, revision) {
    this.inner = inner;
    this.revision = revision;
    this.proposed = null;
    this.answered = null;
    this.initializeId = null;
    // Every message received, in order, to check what the server sent
    // beneath the SDK (see `wireProgress`).
    this.received = [];
    this.sentRequests = new Map();
    inner.onmessage = (message, extra) => {
      if (process.env.TS_CLIENT_TRACE) process.stderr.write(`<- ${JSON.stringify(message)}\n`);
      this.received.push(message);
      if (message.id !== undefined && message.id === this.initializeId && message.result) {
        this.answered = message.result.protocolVersion;
      }
      this.onmessage?.(message, extra);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
  }
  get sessionId() { return this.inner.sessionId; }
  get protocolVersion() { return this.inner.protocolVersion; }
  setProtocolVersion(v) { this.inner.setProtocolVersion?.(v); }
  start() { return this.inner.start(); }
  close() { return this.inner.close(); }
  // The progress notifications the server sent for request `id` before its
  // response, as `progress/total` strings, and whether any came after it.
  wireProgress(id) {
    const token = this.sentRequests.get(id)?.params?._meta?.progressToken;
    const before = [];
    let answered = false;
    let late = 0;
    for (const m of this.received) {
      if (m.id === id && (m.result || m.error)) answered = true;
      if (m.method === 'notifications/progress' && token !== undefined && m.params.progressToken === token) {
        if (answered) late += 1;
        else before.push(`${m.params.progress}/${m.params.total}`);
      }
    }
    return { token, before, late };
  }
  lastRequestId(method) {
    return [...this.sentRequests.values()].filter((m) => m.method === method).at(-1)?.id;
  }
  send(message, options) {
    if (process.env.TS_CLIENT_TRACE) process.stderr.write(`-> ${JSON.stringify(message)}\n`);
    if (message.method !== undefined && message.id !== undefined) this.sentRequests.set(message.id, message);
    if (message.method === 'initialize') {
      this.initializeId = message.id;
      if (this.revision !== null) {
        message = { ...message, params: { ...message.params, protocolVersion: this.revision } };
      }
      this.proposed = message.params.protocolVersion;
    }
    return this.inner.send(message, options);
  }
}

function transport(a) {
  if (a.url !== null) return new StreamableHTTPClientTransport(new URL(a.url), { requestInit: { headers: a.headers } });
  const env = getDefaultEnvironment();
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
  return new StdioClientTransport({ command: a.stdio.command, args: a.stdio.args, env, stderr: 'inherit' });
}

function text(result) {
  return (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

async function listAllTools(client, pageSize) {
  const sizes = [];
  const names = [];
  let cursor;
  for (;;) {
    if (sizes.length >= MAX_PAGES) fail(`tools/list still hands out cursors after ${MAX_PAGES} pages`);
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    sizes.push(page.tools.length);
    if (pageSize !== null && page.tools.length > pageSize) {
      fail(`tools/list page ${sizes.length} holds ${page.tools.length} tools, more than ${pageSize}`);
    }
    for (const t of page.tools) {
      if (names.includes(t.name)) fail(`tools/list lists ${t.name} twice`);
      names.push(t.name);
    }
    cursor = page.nextCursor;
    if (cursor === undefined) return { sizes, names };
  }
}

async function expectRpcError(client, name, args, what) {
  let result;
  try {
    result = await client.callTool({ name, arguments: args });
  } catch (e) {
    if (!(e instanceof McpError)) throw e;
    if (e.code !== INVALID_PARAMS) fail(`${what}: expected JSON-RPC error ${INVALID_PARAMS}, got ${e.code}: ${e.message}`);
    return { kind: 'jsonrpc_error', code: e.code, message: e.message };
  }
  fail(`${what}: expected JSON-RPC error ${INVALID_PARAMS}, got a result (isError ${result.isError}): ${text(result)}`);
}

async function checkRevision(a, revision) {
  const conn = new ForcedRevision(transport(a), revision === 'sdk' ? null : revision);
  const client = new Client({ name: 'ts-client', version: '0' }, { capabilities: {} });
  const logs = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push({ level: n.params.level, data: n.params.data });
  });
  await client.connect(conn);
  try {
    const expected = revision === 'sdk' ? conn.proposed : revision;
    if (conn.answered !== expected) fail(`initialize proposing ${conn.proposed}: the server answered ${conn.answered}`);
    const negotiated = conn.answered;
    // Over HTTP the SDK sends the negotiated revision as MCP-Protocol-Version.
    const header = a.url !== null ? conn.protocolVersion : undefined;
    if (a.url !== null && header !== negotiated) fail(`the HTTP transport sends MCP-Protocol-Version ${header}, not ${negotiated}`);
    const info = client.getServerVersion();

    const { sizes, names } = await listAllTools(client, a.pageSize);
    if (a.expectTools !== null && names.length !== a.expectTools) {
      fail(`tools/list: ${names.length} tools, expected ${a.expectTools}: ${names.join(', ')}`);
    }

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
        if (e instanceof McpError) fail(`${what}: expected a result with isError true, got JSON-RPC error ${e.code}: ${e.message}`);
        throw e;
      }
      if (bad.isError !== true) fail(`${what}: expected isError true, got a result: ${text(bad)}`);
      invalid = { kind: 'is_error_result', text: text(bad) };
    } else {
      invalid = await expectRpcError(client, 'structured', { text: 5 }, what);
    }

    const unknown = await expectRpcError(client, UNKNOWN_TOOL, {}, `unknown tool at ${negotiated}`);

    await client.setLoggingLevel('debug');
    const progress = [];
    const done = await client.callTool({ name: 'log_progress', arguments: {} }, undefined, {
      onprogress: (p) => progress.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null }),
    });
    if (done.isError || text(done) !== 'logged') fail(`log_progress: ${text(done)} (isError ${done.isError})`);
    // What the server sent, beneath the SDK: progress 0, 50, 100 of 100 for
    // the request's token, all before the response.
    const wire = conn.wireProgress(conn.lastRequestId('tools/call'));
    const wantProgress = '0/100 50/100 100/100';
    if (wire.token === undefined) fail('the SDK sent no progressToken although onprogress was given');
    if (wire.before.join(' ') !== wantProgress || wire.late !== 0) {
      fail(`log_progress at ${negotiated}: the server sent progress [${wire.before.join(' ')}] before the response and ${wire.late} after, expected ${wantProgress} before it`);
    }
    // What the SDK handed to onprogress. SDK 1.x drops progress that arrives
    // in the same read as the response (typescript-sdk issue #2580: it runs
    // notification handlers in a microtask but retires the request's
    // progress handler at once), so it may see fewer, but never others.
    const seen = progress.map((p) => `${p.progress}/${p.total}`);
    if (seen.join(' ') !== wire.before.slice(0, seen.length).join(' ')) {
      fail(`log_progress at ${negotiated}: onprogress saw [${seen.join(' ')}], not a prefix of what the server sent [${wire.before.join(' ')}]`);
    }

    return {
      revision,
      proposed: conn.proposed,
      negotiated,
      http_protocol_version_header: header ?? null,
      server: info ? `${info.name} ${info.version}` : null,
      page_sizes: sizes,
      tools: names.length,
      structured_content: ok.structuredContent,
      invalid_arguments: invalid,
      unknown_tool: unknown,
      wire_progress: wire.before,
      onprogress: progress,
      logs,
    };
  } finally {
    await client.close();
  }
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

async function run(a) {
  const revisions = [];
  for (const r of a.revisions) revisions.push(await checkRevision(a, r));
  return {
    ok: true,
    sdk: `@modelcontextprotocol/sdk ${sdkVersion()}`,
    sdk_latest_protocol_version: LATEST_PROTOCOL_VERSION,
    sdk_supported_protocol_versions: SUPPORTED_PROTOCOL_VERSIONS,
    transport: a.url !== null ? 'http' : 'stdio',
    revisions,
  };
}

async function main() {
  let a;
  try {
    a = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof Usage)) throw e;
    process.stderr.write(`ts-client: ${e.message}\n`);
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
    const reason = e instanceof CheckFailed ? e.message
      : e instanceof McpError ? `unexpected JSON-RPC error ${e.code}: ${e.message}`
        : `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
    process.stderr.write(`ts-client: FAIL: ${reason}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

process.exitCode = await main();
// A stuck transport must not keep the process alive after the verdict.
process.exit(process.exitCode);
