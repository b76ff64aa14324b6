#!/usr/bin/env node
// Calls one tool many times through a load balancer in front of replicas
// (host/tests/all/common/cluster) with the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk 1.x: Client, StreamableHTTPClientTransport),
// and counts how the calls ended.
//
// Usage:
//   node tests/ts/cluster-client.mjs --url URL --tool NAME [--arguments JSON]
//        [--calls N] [--workers W]
//
// W workers (default 4) make N calls (default 60) in all, each on a Client
// of its own (initialize, then tools/call), so any replica may answer any
// request. A call is `ok` when its result has no isError; otherwise its
// kind is `tool_error` (a result with isError), `jsonrpc_CODE` (an
// McpError) or the error's name. Prints one JSON line:
// {"calls", "ok", "errors": {kind: n}, "samples": {kind: text}}.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

function option(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
}

const argv = process.argv.slice(2);
const url = option(argv, '--url');
const tool = option(argv, '--tool');
if (!url || !tool) {
  console.error('usage: cluster-client.mjs --url URL --tool NAME [--arguments JSON] [--calls N] [--workers W]');
  process.exit(2);
}
const args = JSON.parse(option(argv, '--arguments', '{}'));
const calls = Number(option(argv, '--calls', '60'));
const workers = Number(option(argv, '--workers', '4'));

const summary = { calls: 0, ok: 0, errors: {}, samples: {} };

function record(kind, text) {
  summary.calls += 1;
  if (kind === null) {
    summary.ok += 1;
    return;
  }
  summary.errors[kind] = (summary.errors[kind] ?? 0) + 1;
  summary.samples[kind] ??= String(text).slice(0, 300);
}

async function oneCall() {
  const client = new Client({ name: 'cluster-client', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: tool, arguments: args });
    const text = (result.content ?? []).map((c) => c.text ?? '').join('');
    record(result.isError ? 'tool_error' : null, text);
  } catch (e) {
    record(e instanceof McpError ? `jsonrpc_${e.code}` : (e?.name ?? 'Error'), e?.message ?? e);
  } finally {
    await client.close().catch(() => {});
  }
}

let started = 0;
async function worker() {
  while (started < calls) {
    started += 1;
    await oneCall();
  }
}

await Promise.all(Array.from({ length: workers }, worker));
console.log(JSON.stringify(summary));
