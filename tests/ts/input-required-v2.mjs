#!/usr/bin/env node
// Checks a guest's requests to the client at MCP 2026-07-28 (multi
// round-trip requests, SEP-2322) with the official MCP TypeScript SDK v2
// client (@modelcontextprotocol/client 2.x), over stdio or Streamable HTTP.
//
// The `asker` test plugin's tools ask the client while they run. At
// 2026-07-28 the server answers such a call with an `input_required` result;
// the SDK fulfils the embedded requests through the handlers registered with
// setRequestHandler (elicitation/create, sampling/createMessage, roots/list)
// and calls the tool again with `inputResponses` and `requestState`. This
// script checks that the guest gets every answer:
//   `interview` asks the user two questions, one after the other (two rounds);
//   `batch` asks the user, the model and the roots at once (one round).
//
// Usage:
//   node tests/ts/input-required-v2.mjs [--timeout S] --url URL
//   node tests/ts/input-required-v2.mjs [--timeout S] --stdio BIN ARG...
// Prints a one-line JSON summary on stdout and exits 0; on a failed check
// prints `ts-input-required: FAIL: reason` on stderr and exits 1.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { MODERN, fail, parseArgs as parseCommonArgs, stdioEnv, text, runClient } from './checks.mjs';

function parseArgs(argv) {
  return parseCommonArgs(argv, {}, () => false, () => {});
}

function transport(a) {
  if (a.url !== null) return new StreamableHTTPClientTransport(new URL(a.url));
  const env = stdioEnv(getDefaultEnvironment());
  return new StdioClientTransport({ command: a.stdio.command, args: a.stdio.args, env, stderr: 'inherit' });
}

function json(result, what) {
  if (result.isError) fail(`${what} failed: ${text(result)}`);
  return JSON.parse(text(result));
}

// Deep equality of JSON values, whatever the order of object keys.
function sorted(v) {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]));
  return v;
}

function same(a, b) {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

async function run(a) {
  const client = new Client(
    { name: 'ts-input-required', version: '0' },
    {
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
      versionNegotiation: { mode: { pin: MODERN } },
    },
  );
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    const answer = { 'Name?': 'Ada', 'Colour?': 'green' }[request.params.message] ?? request.params.message.toUpperCase();
    return { action: 'accept', content: { answer } };
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { role: 'assistant', content: { type: 'text', text: 'Hello from the model' }, model: 'test-model', stopReason: 'endTurn' };
  });
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return { roots: [{ uri: 'file:///home/ada/project', name: 'project' }] };
  });
  await client.connect(transport(a));
  try {
    const negotiated = client.getNegotiatedProtocolVersion();
    if (negotiated !== MODERN) fail(`the client negotiated ${negotiated}, not ${MODERN}`);
    const interview = json(await client.callTool({ name: 'interview', arguments: { first: 'Name?', second: 'Colour?' } }), 'interview');
    if (!same(interview, { first: { answer: 'Ada' }, second: { answer: 'green' } })) {
      fail(`interview: the guest got ${JSON.stringify(interview)}`);
    }
    const batch = json(await client.callTool({
      name: 'batch',
      arguments: { requests: [['who', 'elicit'], ['greeting', 'sample'], ['where', 'roots']] },
    }), 'batch');
    const expected = [
      { action: 'accept', content: { answer: 'WHO' } },
      { text: 'Hello from the model', model: 'test-model' },
      { roots: [{ uri: 'file:///home/ada/project', name: 'project' }] },
    ];
    if (!same(batch.answers, expected)) fail(`batch: the guest got ${JSON.stringify(batch)}`);
    return { ok: true, negotiated, interview, asked };
  } finally {
    await client.close();
  }
}

runClient('ts-input-required', parseArgs, run, (e) => `${e?.name ?? 'Error'}: ${e?.message ?? e}`);
