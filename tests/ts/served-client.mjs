#!/usr/bin/env node
// Checks the resources, prompts and completions an mcp-wasm-host server
// serves from the `conformance` test plugin, with the official MCP
// TypeScript SDK (@modelcontextprotocol/sdk 1.x: Client), over stdio or
// Streamable HTTP.
//
// Usage:
//   node tests/ts/served-client.mjs --url URL
//   node tests/ts/served-client.mjs --stdio BIN ARG...   (--stdio comes last)
//
// Lists the resources and templates, reads the text, binary and template
// resources and an unknown URI (an McpError), lists the prompts, gets one
// with its arguments filled in and one without a required argument (an
// McpError), and completes an argument. Prints a one-line JSON summary and
// exits 0; on a failed check prints `served-client: FAIL: reason` on stderr
// and exits 1.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { stdioEnv } from './checks.mjs';

function fail(reason) {
  throw new Error(`FAIL: ${reason}`);
}

function parse(argv) {
  const i = argv.indexOf('--stdio');
  if (i >= 0) return { stdio: { command: argv[i + 1], args: argv.slice(i + 2) }, url: null };
  const u = argv.indexOf('--url');
  if (u >= 0) return { url: argv[u + 1] };
  console.error('usage: served-client.mjs --url URL | --stdio BIN ARG...');
  process.exit(2);
}

async function errorCode(promise) {
  try {
    await promise;
  } catch (e) {
    if (e instanceof McpError) return e.code;
    throw e;
  }
  return null;
}

async function main() {
  const a = parse(process.argv.slice(2));
  const transport = a.url
    ? new StreamableHTTPClientTransport(new URL(a.url))
    : new StdioClientTransport({ ...a.stdio, env: stdioEnv(getDefaultEnvironment()), stderr: 'inherit' });
  const client = new Client({ name: 'served-client', version: '0' }, { capabilities: {} });
  await client.connect(transport);
  const caps = client.getServerCapabilities();
  if (!caps.resources || !caps.prompts || !caps.completions) fail(`capabilities ${JSON.stringify(caps)}`);

  const resources = (await client.listResources()).resources.map((r) => r.uri);
  for (const uri of ['test://static-text', 'test://static-binary', 'test://watched-resource']) {
    if (!resources.includes(uri)) fail(`resources/list lacks ${uri}: ${resources}`);
  }
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  if (JSON.stringify(templates) !== JSON.stringify(['test://template/{id}/data'])) fail(`templates ${templates}`);
  const text = (await client.readResource({ uri: 'test://static-text' })).contents[0];
  if (!text.text?.includes('static text resource')) fail(`read text ${JSON.stringify(text)}`);
  const blob = (await client.readResource({ uri: 'test://static-binary' })).contents[0];
  if (Buffer.from(blob.blob ?? '', 'base64').subarray(1, 4).toString() !== 'PNG') fail(`read blob ${JSON.stringify(blob)}`);
  const data = (await client.readResource({ uri: 'test://template/9/data' })).contents[0];
  if (JSON.parse(data.text).id !== '9') fail(`read template ${JSON.stringify(data)}`);
  const unknownUri = await errorCode(client.readResource({ uri: 'test://nothing-here' }));
  if (unknownUri === null) fail('reading an unknown URI succeeded');

  const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
  if (!prompts.includes('test_prompt_with_arguments')) fail(`prompts/list ${prompts}`);
  const got = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'one', arg2: 'two' } });
  if (got.messages[0]?.content?.text !== "Prompt with arguments: arg1='one', arg2='two'") fail(`prompts/get ${JSON.stringify(got)}`);
  const missing = await errorCode(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'one' } }));
  if (missing === null) fail('prompts/get without a required argument succeeded');

  const done = await client.complete({
    ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
    argument: { name: 'arg1', value: 'te' },
  });
  if (JSON.stringify(done.completion.values) !== JSON.stringify(['test', 'testValue1'])) fail(`complete ${JSON.stringify(done)}`);
  await client.close();
  console.log(JSON.stringify({
    transport: a.url ? 'http' : 'stdio',
    resources: resources.length,
    templates: templates.length,
    prompts: prompts.length,
    unknown_uri_error: unknownUri,
    missing_argument_error: missing,
    completion: done.completion.values,
  }));
}

const timer = setTimeout(() => { console.error('served-client: FAIL: timed out'); process.exit(1); }, 60000);
main().then(() => { clearTimeout(timer); process.exit(0); }, (e) => {
  console.error(`served-client: ${e.message.startsWith('FAIL') ? e.message : `FAIL: ${e.stack}`}`);
  process.exit(1);
});
