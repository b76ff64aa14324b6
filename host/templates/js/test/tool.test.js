// Serves dist/@NAME@.wasm with mcp-wasm-host and calls its tool the way an
// MCP client does: JSON-RPC messages, one per line, on the server's stdin and
// stdout.
//
// Build first (npm run build). The host is $MCP_WASM_HOST_BIN, else
// mcp-wasm-host on PATH.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));

/** `mcp-wasm-host serve` on dist/. */
class Server {
  constructor() {
    assert.ok(existsSync(`${dist}/@NAME@.wasm`), "dist/@NAME@.wasm not found: run npm run build first");
    const host = process.env.MCP_WASM_HOST_BIN ?? "mcp-wasm-host";
    this.child = spawn(host, ["serve", "--no-watch", "--log", "warn", "--plugins", dist], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.nextId = 1;
    this.waiting = new Map();
    this.ended = new Promise((_, reject) => {
      this.child.on("error", (e) =>
        reject(new Error(`cannot run ${host} (${e.message}): put mcp-wasm-host on PATH or set MCP_WASM_HOST_BIN`)),
      );
      this.child.on("exit", () => reject(new Error("the server exited")));
    });
    this.ended.catch(() => {});
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const message = JSON.parse(line);
      this.waiting.get(message.id)?.(message);
    });
  }

  send(message) {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a request and returns its response; notifications are skipped. */
  request(method, params) {
    const id = this.nextId++;
    const response = new Promise((resolve) => this.waiting.set(id, resolve));
    this.send({ jsonrpc: "2.0", id, method, params });
    return Promise.race([response, this.ended]);
  }

  call(args) {
    return this.request("tools/call", { name: "number_stats", arguments: args });
  }
}

/** A JSON-RPC error, or a tool result with isError. */
const isError = (response) => "error" in response || response.result?.isError === true;

let server;

before(async () => {
  server = new Server();
  const client = { name: "@NAME@-test", version: "0.1.0" };
  const init = await server.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: client });
  assert.ok(init.result, `initialize failed: ${JSON.stringify(init)}`);
  server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
});

after(() => server?.child.kill());

test("the host lists number_stats with its input schema", async () => {
  const { result } = await server.request("tools/list", {});
  const tool = result.tools.find((t) => t.name === "number_stats");
  assert.ok(tool, JSON.stringify(result.tools));
  assert.deepEqual(tool.inputSchema.required, ["numbers"]);
});

test("number_stats counts and averages numbers", async () => {
  const response = await server.call({ numbers: [1, 2, 2] });
  assert.ok(!isError(response), JSON.stringify(response));
  assert.deepEqual(response.result.structuredContent, { count: 3, mean: 1.67, min: 1, max: 2 });
});

test("number_stats refuses an empty list", async () => {
  assert.ok(isError(await server.call({ numbers: [] })));
});

test("the host refuses arguments that do not fit the schema", async () => {
  assert.ok(isError(await server.call({ numbers: "one, two" })));
});
