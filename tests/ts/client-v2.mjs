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
import { HANDSHAKE_REVISIONS, MODERN, Usage, fail, parseArgs as parseCommonArgs, stdioEnv, text, callTools, progressRecorder, progressOnWire, checkProgress, summarize, runClient } from './checks.mjs';

const ALL_RUNS = ['auto', MODERN, 'sdk', ...HANDSHAKE_REVISIONS];
const SDK = {
  package: '@modelcontextprotocol/client',
  latest: LATEST_PROTOCOL_VERSION,
  supported: SUPPORTED_PROTOCOL_VERSIONS,
};
const UNKNOWN_TOOL = 'no_such_tool__ts_client_v2';
const TRACE = process.env.TS_CLIENT_TRACE === '1';

function parseArgs(argv) {
  const a = { runs: [] };
  const option = (arg, value) => {
    if (arg !== '--revision') return false;
    a.runs.push(value());
    return true;
  };
  return parseCommonArgs(argv, a, option, () => {
    if (a.runs.length === 0) a.runs = ALL_RUNS;
    for (const r of a.runs) {
      if (!ALL_RUNS.includes(r)) throw new Usage(`--revision ${r}: one of ${ALL_RUNS.join(', ')}`);
    }
  });
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

  // The progress notifications for `request`'s token, split at its response.
  progress(request) {
    return progressOnWire(this.received, request);
  }
}

function transport(a, wire) {
  if (a.url !== null) {
    return wire.attach(new StreamableHTTPClientTransport(new URL(a.url), { fetch: wire.fetch() }));
  }
  const env = stdioEnv(getDefaultEnvironment());
  return wire.attach(new StdioClientTransport({ command: a.stdio.command, args: a.stdio.args, env, stderr: 'inherit' }));
}

function clientOptions(run) {
  const options = { capabilities: {} };
  if (run === 'auto') options.versionNegotiation = { mode: 'auto' };
  else if (run === MODERN) options.versionNegotiation = { mode: { pin: MODERN } };
  else if (run !== 'sdk') options.supportedProtocolVersions = [run];
  return options;
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

    const calls = await callTools(client, ProtocolError, negotiated, UNKNOWN_TOOL);

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
    const { seen: progress, onprogress } = progressRecorder();
    const done = await client.callTool(call, { onprogress });
    if (done.isError || text(done) !== 'logged') fail(`log_progress: ${text(done)} (isError ${done.isError})`);
    const wireProgress = wire.progress(wire.requests('tools/call').at(-1));
    const progressSeen = checkProgress(negotiated, wireProgress, progress);

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
      ...calls,
      set_level_refused: setLevelRefused,
      ...progressSeen,
      logs,
    };
  } finally {
    await client.close();
  }
}

const run = (a) => summarize(a, SDK, 'runs', a.runs, checkRun);
await runClient('ts-client-v2', parseArgs, run, (e) => (e instanceof ProtocolError
  ? `unexpected JSON-RPC error ${e.code}: ${e.message}`
  : `${e?.name ?? 'Error'}${e?.code !== undefined ? ` (${e.code})` : ''}: ${e?.message ?? e}`));
