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
import { HANDSHAKE_REVISIONS, MODERN, Usage, fail, parseArgs as parseCommonArgs, stdioEnv, text, callTools, progressRecorder, progressOnWire, checkProgress, packageVersion, summarize, runClient } from './checks.mjs';

const SDK = {
  package: '@modelcontextprotocol/sdk',
  latest: LATEST_PROTOCOL_VERSION,
  supported: SUPPORTED_PROTOCOL_VERSIONS,
};
const UNKNOWN_TOOL = 'no_such_tool__ts_client';
const MAX_PAGES = 1000;

function parseArgs(argv) {
  const a = { revisions: [], headers: {} };
  const option = (arg, value) => {
    switch (arg) {
      case '--revision': a.revisions.push(value()); return true;
      case '--header': {
        const h = value();
        const at = h.indexOf(':');
        if (at < 1) throw new Usage(`--header wants 'NAME: VALUE', got ${h}`);
        a.headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
        return true;
      }
      default: return false;
    }
  };
  return parseCommonArgs(argv, a, option, () => {
    if (a.stdio !== null && Object.keys(a.headers).length > 0) throw new Usage('--header needs --url');
    if (a.revisions.length === 0) a.revisions = ['sdk', ...HANDSHAKE_REVISIONS];
    for (const r of a.revisions) {
      if (r === MODERN) {
        throw new Usage(`the TypeScript SDK ${packageVersion(SDK.package)} speaks no ${MODERN} (it has no server/discover); its versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`);
      }
      if (r !== 'sdk' && !SUPPORTED_PROTOCOL_VERSIONS.includes(r)) {
        throw new Usage(`--revision ${r}: the SDK supports ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} (or 'sdk')`);
      }
    }
  });
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
    return progressOnWire(this.received, this.sentRequests.get(id));
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
  const env = stdioEnv(getDefaultEnvironment());
  return new StdioClientTransport({ command: a.stdio.command, args: a.stdio.args, env, stderr: 'inherit' });
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

    const calls = await callTools(client, McpError, negotiated, UNKNOWN_TOOL);

    await client.setLoggingLevel('debug');
    const { seen: progress, onprogress } = progressRecorder();
    const done = await client.callTool({ name: 'log_progress', arguments: {} }, undefined, { onprogress });
    if (done.isError || text(done) !== 'logged') fail(`log_progress: ${text(done)} (isError ${done.isError})`);
    // What the server sent, beneath the SDK, and what the SDK handed to
    // onprogress (see `checkProgress`).
    const wire = conn.wireProgress(conn.lastRequestId('tools/call'));
    const progressSeen = checkProgress(negotiated, wire, progress);

    return {
      revision,
      proposed: conn.proposed,
      negotiated,
      http_protocol_version_header: header ?? null,
      server: info ? `${info.name} ${info.version}` : null,
      page_sizes: sizes,
      tools: names.length,
      ...calls,
      ...progressSeen,
      logs,
    };
  } finally {
    await client.close();
  }
}

const run = (a) => summarize(a, SDK, 'revisions', a.revisions, checkRevision);
await runClient('ts-client', parseArgs, run, (e) => (e instanceof McpError
  ? `unexpected JSON-RPC error ${e.code}: ${e.message}`
  : `${e?.name ?? 'Error'}: ${e?.message ?? e}`));
