#!/usr/bin/env node
// Calls a tool as a task through a load balancer in front of replicas that
// share their tasks (host/tests/all/cluster_tasks.rs), with the official
// MCP TypeScript SDK v2 client (@modelcontextprotocol/client 2.x) pinned to
// 2026-07-28 over Streamable HTTP.
//
// The SDK's client refuses a `task` result (its codec answers
// `SdkError: Unsupported result type 'task' for tools/call`: its task types
// are 2025-11-25's), so this script connects the SDK's `Client` (pinned to
// 2026-07-28: `server/discover`) and lists the tools with it, then drives
// SEP-2663 through the SDK's raw message API: a second
// `StreamableHTTPClientTransport`, whose `send` frames each request the
// SDK's way (`MCP-Protocol-Version`, `Mcp-Method`, and the `Mcp-Name`
// header SEP-2663 asks for on `tasks/get`, all derived from the body). Each
// request carries the `_meta` envelope a 2026-07-28 request needs, with the
// tasks extension declared in the client capabilities. A `tools/call`
// answered with a task is polled with `tasks/get` at the server's
// `pollIntervalMs` until it ends. With no affinity, each poll may land on
// any replica.
//
// Usage:
//   node tests/ts/cluster-task-client.mjs --url URL [--tool NAME] [--tasks N]
//        [--seconds S] [--timeout S]
//
// Starts N calls (default 6) of the tool (default slow_compute) at once,
// `{"seconds": S, "label": "tK"}`. Prints one JSON line: {"protocol_version",
// "tasks": [{"label", "text"}], "statuses": [[status, ...] per task]} and
// exits 0; on a failed check `ts-cluster-task: FAIL: reason` on stderr and 1.

import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  Client,
  PROTOCOL_VERSION_META_KEY,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { MODERN, Usage, fail, text, runClient } from './checks.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const TERMINAL = ['completed', 'failed', 'cancelled'];
const CLIENT_INFO = { name: 'ts-cluster-task', version: '0' };
const CAPABILITIES = { extensions: { [TASKS]: {} } };

// JSON-RPC requests over the SDK's own transport, each answered by id.
class Raw {
  constructor(url) {
    this.transport = new StreamableHTTPClientTransport(new URL(url));
    this.pending = new Map();
    this.next = 0;
    this.transport.onmessage = (message) => {
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(new Error(`JSON-RPC error ${message.error.code}: ${message.error.message}`));
      else waiting.resolve(message.result);
    };
    this.transport.onerror = (e) => {
      for (const waiting of this.pending.values()) waiting.reject(e);
      this.pending.clear();
    };
  }

  async start() {
    await this.transport.start();
  }

  // `method` with `params`, framed as a 2026-07-28 request: its result.
  request(method, params) {
    const id = ++this.next;
    const _meta = {
      [PROTOCOL_VERSION_META_KEY]: MODERN,
      [CLIENT_INFO_META_KEY]: CLIENT_INFO,
      [CLIENT_CAPABILITIES_META_KEY]: CAPABILITIES,
    };
    const answer = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }).catch((e) => {
      this.pending.get(id)?.reject(e);
      this.pending.delete(id);
    });
    return answer;
  }

  async close() {
    await this.transport.close();
  }
}

function parseArgs(argv) {
  const a = { url: null, tool: 'slow_compute', tasks: 6, seconds: 1, timeout: 60 };
  for (let i = 0; i < argv.length; i++) {
    const value = () => argv[++i];
    switch (argv[i]) {
      case '--url': a.url = value(); break;
      case '--tool': a.tool = value(); break;
      case '--tasks': a.tasks = Number(value()); break;
      case '--seconds': a.seconds = Number(value()); break;
      case '--timeout': a.timeout = Number(value()); break;
      default: throw new Usage(`unknown argument ${argv[i]}`);
    }
  }
  if (a.url === null) throw new Usage('--url URL is required');
  return a;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One call that becomes a task, polled until it ends: its text and the
// statuses its polls read.
async function oneTask(raw, a, label) {
  const created = await raw.request('tools/call', { name: a.tool, arguments: { seconds: a.seconds, label } });
  if (created.resultType !== 'task' || typeof created.taskId !== 'string') {
    fail(`${a.tool} ${label} did not become a task: ${JSON.stringify(created)}`);
  }
  const statuses = [];
  for (;;) {
    const state = await raw.request('tasks/get', { taskId: created.taskId });
    if (state.taskId !== created.taskId) fail(`tasks/get of ${created.taskId} answered ${JSON.stringify(state)}`);
    statuses.push(state.status);
    if (TERMINAL.includes(state.status)) {
      if (state.status !== 'completed' || !state.result) fail(`task ${label} ended ${JSON.stringify(state)}`);
      if (state.result.isError) fail(`task ${label} failed: ${text(state.result)}`);
      return { label, text: text(state.result), statuses };
    }
    // The client's poll interval, as the server asks (pollIntervalMs).
    await sleep(Math.min(state.pollIntervalMs ?? created.pollIntervalMs ?? 100, 1000));
  }
}

async function run(a) {
  const client = new Client(CLIENT_INFO, {
    capabilities: CAPABILITIES,
    versionNegotiation: { mode: { pin: MODERN } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(a.url)));
  const raw = new Raw(a.url);
  try {
    const negotiated = client.getNegotiatedProtocolVersion();
    if (negotiated !== MODERN) fail(`the client negotiated ${negotiated}, not ${MODERN}`);
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === a.tool)) fail(`the server lists no tool ${a.tool}`);
    await raw.start();
    const labels = Array.from({ length: a.tasks }, (_, k) => `t${k + 1}`);
    const done = await Promise.all(labels.map((label) => oneTask(raw, a, label)));
    return {
      protocol_version: negotiated,
      tasks: done.map(({ label, text }) => ({ label, text })),
      statuses: done.map((d) => d.statuses),
    };
  } finally {
    await raw.close();
    await client.close();
  }
}

runClient('ts-cluster-task', parseArgs, run, (e) => `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
