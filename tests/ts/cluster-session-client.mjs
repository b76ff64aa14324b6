#!/usr/bin/env node
// Keeps one MCP session at 2025-11-25 through a load balancer in front of
// replicas that share their sessions (host/tests/all/cluster_sessions.rs),
// with the official MCP TypeScript SDK 1.x (@modelcontextprotocol/sdk:
// Client, StreamableHTTPClientTransport), as
// tests/python/cluster_session_client.py does with the Python SDK.
//
// It connects (initialize at the SDK's default, 2025-11-25; the transport
// keeps the server's Mcp-Session-Id and sends it on every later request),
// calls the kvnotes tool `add-note` --notes times (`note 1`, `note 2`, ...),
// then `notes`, and ends the session with the SDK's DELETE
// (terminateSession). With no affinity, the requests land on the replicas
// in turn; the counts come out 1, 2, 3... only if the session, and its
// `scope = "session"` bucket, are the same on each.
//
// Usage:
//   node tests/ts/cluster-session-client.mjs --url URL [--notes N] [--timeout S]
// Prints one JSON line {"protocol_version", "session", "counts", "notes"}
// ("session": the session id the server gave, for the test to check that
// it ended everywhere) and exits 0; on a
// failed check `ts-cluster-session: FAIL: reason` on stderr and exits 1.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Usage, fail, text, runClient } from './checks.mjs';

function parseArgs(argv) {
  const a = { url: null, notes: 6, timeout: 60 };
  for (let i = 0; i < argv.length; i++) {
    const value = () => argv[++i];
    switch (argv[i]) {
      case '--url': a.url = value(); break;
      case '--notes': a.notes = Number(value()); break;
      case '--timeout': a.timeout = Number(value()); break;
      default: throw new Usage(`unknown argument ${argv[i]}`);
    }
  }
  if (a.url === null) throw new Usage('--url URL is required');
  return a;
}

// The structured `result` of a kvnotes call.
function valueOf(result, tool) {
  if (result.isError) fail(`${tool} failed: ${text(result)}`);
  const content = result.structuredContent ?? {};
  if (!('result' in content)) fail(`${tool} returned no structured result: ${text(result)}`);
  return content.result;
}

async function run(a) {
  const client = new Client({ name: 'ts-cluster-session', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(a.url));
  await client.connect(transport);
  const session = transport.sessionId ?? null;
  const counts = [];
  let notes;
  try {
    for (let n = 1; n <= a.notes; n++) {
      counts.push(valueOf(await client.callTool({ name: 'add-note', arguments: { text: `note ${n}` } }), 'add-note'));
    }
    notes = valueOf(await client.callTool({ name: 'notes', arguments: {} }), 'notes');
    await transport.terminateSession();
  } finally {
    await client.close();
  }
  return { protocol_version: transport.protocolVersion, session, counts, notes };
}

runClient('ts-cluster-session', parseArgs, run, (e) => `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
