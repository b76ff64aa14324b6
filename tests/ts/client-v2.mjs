#!/usr/bin/env node
// Checks an mcp-wasm-host server with the official MCP TypeScript SDK v2
// client (@modelcontextprotocol/client 2.x: Client, StdioClientTransport,
// StreamableHTTPClientTransport), over stdio or Streamable HTTP, at protocol
// revision 2026-07-28 (which it negotiates with `server/discover`) and at
// the older handshake revisions.
//
// Usage:
//   node tests/ts/client-v2.mjs [options] --url URL
//   node tests/ts/client-v2.mjs [options] --stdio BIN ARG...   (--stdio comes last)
// Options:
//   --revision R     a run (repeatable; default: all of them). Each run is
//                    chosen with the SDK's own options, nothing is rewritten:
//                    `auto`        versionNegotiation {mode: 'auto'}: probe
//                                  `server/discover`, fall back to initialize;
//                    `2026-07-28`  versionNegotiation {mode: {pin: ...}}: that
//                                  revision or fail, no fallback;
//                    `sdk`         no options: the SDK's default 'legacy' mode,
//                                  initialize proposing LATEST_PROTOCOL_VERSION;
//                    a dated revision before 2026-07-28: supportedProtocolVersions
//                                  [R], so initialize proposes R and accepts
//                                  nothing else.
//   --page-size N    no tools/list page may hold more than N tools
//   --expect-tools N the server must list exactly N tools
//   --timeout S      limit for the whole run (default 60)
//
// For each run, one connection (over stdio a fresh server process; the SDK
// probes a stdio server's era on a throwaway sibling process of its own):
// connect; check from the server's own answers which revision it speaks
// (2026-07-28: the server's discover result, and a `server/discover` sent on
// the connection itself; before: the server's initialize result); list every
// tool with the SDK's page walk (the page sizes are read off the wire); call
// `structured` {"text": "a b"} (the SDK checks its structuredContent
// against the output schema); call `structured` {"text": 5}, which breaks
// the input schema (before 2025-11-25: JSON-RPC error -32602; from
// 2025-11-25 on: a result with isError true); call an unknown tool
// (-32602); ask for log messages at debug (before 2026-07-28 with
// `logging/setLevel`; at 2026-07-28, which has no such method, with the
// request's `_meta` `io.modelcontextprotocol/logLevel`) and call
// `log_progress` with `onprogress`: the server must send progress 0, 50,
// 100 of 100 for the request's token before the result (checked on the
// messages the transport received), and `onprogress` must have seen a
// prefix of them (the SDK drops those that arrive in the same read as the
// result, as 1.x does: typescript-sdk issue #2580). At 2026-07-28 every
// request the client sent must carry that revision in its `_meta` (and, over
// HTTP, in the MCP-Protocol-Version header), and no `initialize` may be sent.
// Set TS_CLIENT_TRACE=1 to print every message sent and received on stderr.
//
// Prints a one-line JSON summary on stdout and exits 0; on a failed check
// prints `ts-client-v2: FAIL: reason` on stderr and exits 1 (2 for bad usage).
// The server's stderr passes through to ours.

import {
  Client,
  StreamableHTTPClientTransport,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  PROTOCOL_VERSION_META_KEY,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  SdkError,
} from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { readFileSync } from 'node:fs';

const MODERN = '2026-07-28';
const HANDSHAKE_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const ALL_RUNS = ['auto', MODERN, 'sdk', ...HANDSHAKE_REVISIONS];
const SCHEMA_ERRORS_AS_RESULTS_FROM = '2025-11-25';
const INVALID_PARAMS = -32602;
const UNKNOWN_TOOL = 'no_such_tool__ts_client_v2';
// Passed on to a stdio server when set, on top of the SDK's default environment.
const PASSED_ENV = ['RUST_LOG', 'RUST_BACKTRACE', 'MCP_WASM_HOST_CACHE_DIR'];
const TRACE = process.env.TS_CLIENT_TRACE === '1';

class CheckFailed extends Error {}
class Usage extends Error {}

function fail(message) {
  throw new CheckFailed(message);
}

function parseArgs(argv) {
  const a = { runs: [], pageSize: null, expectTools: null, timeout: 60, url: null, stdio: null };
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
      case '--revision': a.runs.push(value()); break;
      case '--page-size': a.pageSize = Number(value()); break;
      case '--expect-tools': a.expectTools = Number(value()); break;
      case '--timeout': a.timeout = Number(value()); break;
      default: throw new Usage(`unknown argument ${arg}`);
    }
  }
  if ((a.url === null) === (a.stdio === null)) throw new Usage('give exactly one of --url URL and --stdio BIN ARG...');
  if (a.runs.length === 0) a.runs = ALL_RUNS;
  for (const r of a.runs) {
    if (!ALL_RUNS.includes(r)) throw new Usage(`--revision ${r}: one of ${ALL_RUNS.join(', ')}`);
  }
  for (const [name, n] of [['--page-size', a.pageSize], ['--expect-tools', a.expectTools], ['--timeout', a.timeout]]) {
    if (n !== null && !(Number.isFinite(n) && n > 0)) throw new Usage(`${name} must be a positive number`);
  }
  return a;
}

function packageVersion(name) {
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

function trace(direction, message) {
  if (TRACE) process.stderr.write(`ts-client-v2 ${direction} ${JSON.stringify(message)}\n`);
}

// Records every message the SDK's transport sends and receives, and over
// HTTP every POST's protocol headers, without changing the transport's
// class: the SDK recognises its own stdio transport by its prototype (to
// probe on a sibling process), so the instance is patched, not wrapped.
class Wire {
  constructor() {
    this.sent = [];
    this.received = [];
    this.posts = [];
  }

  attach(transport) {
    const wire = this;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      trace('>', message);
      wire.sent.push(message);
      return send(message, options);
    };
    // The SDK installs its handlers by assignment (its negotiation window,
    // then the protocol layer); record what the transport hands each one.
    let handler;
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      get: () => handler,
      set: (h) => {
        handler = typeof h === 'function'
          ? (message, extra) => {
            trace('<', message);
            wire.received.push(message);
            return h(message, extra);
          }
          : h;
      },
    });
    return transport;
  }

  // A fetch for the HTTP transport that notes each POST's MCP headers.
  fetch() {
    return async (url, init) => {
      if ((init?.method ?? 'GET') === 'POST') {
        const h = new Headers(init.headers);
        let body;
        try {
          body = JSON.parse(init.body);
        } catch {
          body = null;
        }
        this.posts.push({
          method: body?.method ?? null,
          isRequest: body !== null && body.id !== undefined && body.method !== undefined,
          protocolVersion: h.get('mcp-protocol-version'),
          mcpMethod: h.get('mcp-method'),
          sessionId: h.get('mcp-session-id'),
        });
      }
      return fetch(url, init);
    };
  }

  requests(method) {
    return this.sent.filter((m) => m.method === method && m.id !== undefined);
  }

  responseTo(id) {
    return this.received.find((m) => m.id === id && m.method === undefined && (m.result !== undefined || m.error !== undefined));
  }

  // The progress notifications for `id`'s token, split at its response.
  progress(request) {
    const token = request.params?._meta?.progressToken;
    const before = [];
    let late = 0;
    let answered = false;
    for (const m of this.received) {
      if (m.id === request.id && m.method === undefined) answered = true;
      if (m.method === 'notifications/progress' && token !== undefined && m.params?.progressToken === token) {
        if (answered) late++;
        else before.push(`${m.params.progress}/${m.params.total}`);
      }
    }
    return { token, before, late };
  }
}

function transport(a, wire) {
  if (a.url !== null) {
    return wire.attach(new StreamableHTTPClientTransport(new URL(a.url), { fetch: wire.fetch() }));
  }
  const env = getDefaultEnvironment();
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
  return wire.attach(new StdioClientTransport({ command: a.stdio.command, args: a.stdio.args, env, stderr: 'inherit' }));
}

function clientOptions(run) {
  const options = { capabilities: {} };
  if (run === 'auto') options.versionNegotiation = { mode: 'auto' };
  else if (run === MODERN) options.versionNegotiation = { mode: { pin: MODERN } };
  else if (run !== 'sdk') options.supportedProtocolVersions = [run];
  return options;
}

function text(result) {
  return (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

async function expectRpcError(client, name, args, what) {
  let result;
  try {
    result = await client.callTool({ name, arguments: args });
  } catch (e) {
    if (!(e instanceof ProtocolError)) throw e;
    if (e.code !== INVALID_PARAMS) fail(`${what}: expected JSON-RPC error ${INVALID_PARAMS}, got ${e.code}: ${e.message}`);
    return { kind: 'jsonrpc_error', code: e.code, message: e.message };
  }
  fail(`${what}: expected JSON-RPC error ${INVALID_PARAMS}, got a result (isError ${result.isError}): ${text(result)}`);
}

// Which revision the server speaks on this connection, from its own answers.
async function serverRevision(client, wire, run) {
  const initialize = wire.requests('initialize');
  if (run === 'auto' || run === MODERN) {
    if (initialize.length !== 0) fail(`${run}: the client fell back to initialize: ${JSON.stringify(wire.responseTo(initialize[0].id))}`);
    const probed = client.getDiscoverResult();
    if (!probed?.supportedVersions?.includes(MODERN)) fail(`${run}: the server's discover result offers no ${MODERN}: ${JSON.stringify(probed)}`);
    // The same question on the connection itself, answered on the wire.
    await client.discover();
    const ask = wire.requests('server/discover').at(-1);
    const answer = wire.responseTo(ask.id);
    if (answer?.result === undefined) fail(`server/discover on the connection: ${JSON.stringify(answer)}`);
    return {
      answered: answer.result.supportedVersions.includes(MODERN) ? MODERN : null,
      supported_versions: answer.result.supportedVersions,
      // 2 when the SDK probed on this connection (HTTP), 1 when it probed
      // on a sibling process (its own stdio transport).
      discovers_on_connection: wire.requests('server/discover').length,
    };
  }
  if (initialize.length !== 1) fail(`${run}: ${initialize.length} initialize requests`);
  const answer = wire.responseTo(initialize[0].id);
  if (answer?.result === undefined) fail(`initialize: ${JSON.stringify(answer)}`);
  return { proposed: initialize[0].params.protocolVersion, answered: answer.result.protocolVersion };
}

async function checkRun(a, run) {
  const wire = new Wire();
  const conn = transport(a, wire);
  const client = new Client({ name: 'ts-client-v2', version: '0' }, clientOptions(run));
  const logs = [];
  client.setNotificationHandler('notifications/message', (n) => {
    logs.push({ level: n.params.level, data: n.params.data });
  });
  await client.connect(conn);
  try {
    const negotiated = client.getNegotiatedProtocolVersion();
    const server = await serverRevision(client, wire, run);
    const expected = run === 'auto' || run === MODERN ? MODERN : run === 'sdk' ? LATEST_PROTOCOL_VERSION : run;
    if (server.answered !== expected) fail(`${run}: the server answered ${server.answered}, expected ${expected}`);
    if (negotiated !== expected) fail(`${run}: the SDK negotiated ${negotiated}, the server answered ${expected}`);
    const info = client.getServerVersion();

    const listed = await client.listTools();
    const names = listed.tools.map((t) => t.name);
    if (new Set(names).size !== names.length) fail(`tools/list lists a tool twice: ${names.join(', ')}`);
    if (a.expectTools !== null && names.length !== a.expectTools) {
      fail(`tools/list: ${names.length} tools, expected ${a.expectTools}: ${names.join(', ')}`);
    }
    const pages = wire.requests('tools/list').map((r) => wire.responseTo(r.id)?.result);
    if (pages.some((p) => p === undefined)) fail('a tools/list page went unanswered');
    const sizes = pages.map((p) => p.tools.length);
    if (a.pageSize !== null && sizes.some((n) => n > a.pageSize)) fail(`tools/list pages ${sizes.join(', ')}: one holds more than ${a.pageSize}`);
    if (pages.slice(0, -1).some((p) => p.nextCursor === undefined) || pages.at(-1).nextCursor !== undefined) {
      fail('the SDK did not walk tools/list pages by nextCursor to the end');
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
        if (e instanceof ProtocolError) fail(`${what}: expected a result with isError true, got JSON-RPC error ${e.code}: ${e.message}`);
        throw e;
      }
      if (bad.isError !== true) fail(`${what}: expected isError true, got a result: ${text(bad)}`);
      invalid = { kind: 'is_error_result', text: text(bad) };
    } else {
      invalid = await expectRpcError(client, 'structured', { text: 5 }, what);
    }

    const unknown = await expectRpcError(client, UNKNOWN_TOOL, {}, `unknown tool at ${negotiated}`);

    // Log messages at debug: a session level before 2026-07-28, the
    // request's own `_meta` from then on (the SDK refuses
    // logging/setLevel there, as the revision has no such method).
    let call = { name: 'log_progress', arguments: {} };
    let setLevelRefused = null;
    if (negotiated >= MODERN) {
      try {
        await client.setLoggingLevel('debug');
        fail(`the SDK sent logging/setLevel at ${negotiated}`);
      } catch (e) {
        if (!(e instanceof SdkError)) throw e;
        setLevelRefused = e.code;
      }
      call = { ...call, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } };
    } else {
      await client.setLoggingLevel('debug');
    }
    const progress = [];
    const done = await client.callTool(call, {
      onprogress: (p) => progress.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null }),
    });
    if (done.isError || text(done) !== 'logged') fail(`log_progress: ${text(done)} (isError ${done.isError})`);
    const wireProgress = wire.progress(wire.requests('tools/call').at(-1));
    const wantProgress = '0/100 50/100 100/100';
    if (wireProgress.token === undefined) fail('the SDK sent no progressToken although onprogress was given');
    if (wireProgress.before.join(' ') !== wantProgress || wireProgress.late !== 0) {
      fail(`log_progress at ${negotiated}: the server sent progress [${wireProgress.before.join(' ')}] before the response and ${wireProgress.late} after, expected ${wantProgress} before it`);
    }
    const seen = progress.map((p) => `${p.progress}/${p.total}`);
    if (seen.join(' ') !== wireProgress.before.slice(0, seen.length).join(' ')) {
      fail(`log_progress at ${negotiated}: onprogress saw [${seen.join(' ')}], not a prefix of what the server sent [${wireProgress.before.join(' ')}]`);
    }

    // Every request on the connection, and every answer to it.
    const requests = wire.sent.filter((m) => m.method !== undefined && m.id !== undefined);
    for (const r of requests) {
      if (wire.responseTo(r.id) === undefined) fail(`${r.method} (id ${r.id}) got no response`);
    }
    const metaVersions = [...new Set(requests.map((r) => r.params?._meta?.[PROTOCOL_VERSION_META_KEY] ?? null))];
    if (negotiated >= MODERN && (metaVersions.length !== 1 || metaVersions[0] !== MODERN)) {
      fail(`at ${MODERN} the requests carried _meta protocol versions ${JSON.stringify(metaVersions)}`);
    }
    let headers = null;
    if (a.url !== null) {
      const afterConnect = wire.posts.filter((p) => p.isRequest && p.method !== 'initialize' && p.method !== 'server/discover');
      headers = [...new Set(afterConnect.map((p) => p.protocolVersion))];
      if (headers.length !== 1 || headers[0] !== negotiated) {
        fail(`the HTTP transport sent MCP-Protocol-Version ${JSON.stringify(headers)}, not ${negotiated}`);
      }
    }

    return {
      run,
      negotiated,
      server_answer: server,
      http_protocol_version_headers: headers,
      http_session: a.url !== null ? wire.posts.some((p) => p.sessionId !== null) : null,
      request_meta_versions: metaVersions,
      methods_sent: [...new Set(requests.map((r) => r.method))],
      server: info ? `${info.name} ${info.version}` : null,
      page_sizes: sizes,
      tools: names.length,
      tools_list_ttl_ms: pages[0].ttlMs ?? null,
      structured_content: ok.structuredContent,
      invalid_arguments: invalid,
      unknown_tool: unknown,
      set_level_refused: setLevelRefused,
      wire_progress: wireProgress.before,
      onprogress: progress,
      logs,
    };
  } finally {
    await client.close();
  }
}

async function run(a) {
  const runs = [];
  for (const r of a.runs) runs.push(await checkRun(a, r));
  return {
    ok: true,
    sdk: `@modelcontextprotocol/client ${packageVersion('@modelcontextprotocol/client')}`,
    sdk_latest_protocol_version: LATEST_PROTOCOL_VERSION,
    sdk_supported_protocol_versions: SUPPORTED_PROTOCOL_VERSIONS,
    transport: a.url !== null ? 'http' : 'stdio',
    runs,
  };
}

async function main() {
  let a;
  try {
    a = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof Usage)) throw e;
    process.stderr.write(`ts-client-v2: ${e.message}\n`);
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
      : e instanceof ProtocolError ? `unexpected JSON-RPC error ${e.code}: ${e.message}`
        : `${e?.name ?? 'Error'}${e?.code !== undefined ? ` (${e.code})` : ''}: ${e?.message ?? e}`;
    process.stderr.write(`ts-client-v2: FAIL: ${reason}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
}

process.exitCode = await main();
// A stuck transport must not keep the process alive after the verdict.
process.exit(process.exitCode);
