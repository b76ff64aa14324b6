"""Serves dist/@NAME@.wasm with mcp-wasm-host and calls its tool the way an
MCP client does: JSON-RPC messages, one per line, on the server's stdin and
stdout.

Build first (./build.sh). The host is $MCP_WASM_HOST_BIN, else mcp-wasm-host
on PATH.
"""

import json
import os
import subprocess
import unittest
from pathlib import Path

DIST = Path(__file__).resolve().parent.parent / "dist"


class Server:
    """`mcp-wasm-host serve` on dist/, initialized."""

    def __init__(self):
        if not (DIST / "@NAME@.wasm").is_file():
            raise AssertionError("dist/@NAME@.wasm not found: run ./build.sh first")
        host = os.environ.get("MCP_WASM_HOST_BIN", "mcp-wasm-host")
        command = [host, "serve", "--no-watch", "--log", "warn", "--plugins", str(DIST)]
        try:
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        except OSError as e:
            raise AssertionError(f"cannot run {host} ({e}): put mcp-wasm-host on PATH or set MCP_WASM_HOST_BIN")
        self.next_id = 1
        client = {"name": "@NAME@-test", "version": "0.1.0"}
        init = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client})
        assert "result" in init, f"initialize failed: {init}"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        """Sends a request and returns its response, skipping notifications."""
        id, self.next_id = self.next_id, self.next_id + 1
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        for line in self.proc.stdout:
            message = json.loads(line)
            if message.get("id") == id:
                return message
        raise AssertionError("the server exited")

    def call(self, arguments):
        return self.request("tools/call", {"name": "number_stats", "arguments": arguments})

    def close(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


def is_error(response):
    """A JSON-RPC error, or a tool result with isError."""
    return "error" in response or response.get("result", {}).get("isError") is True


class NumberStatsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def test_the_host_lists_number_stats_with_its_input_schema(self):
        tools = self.server.request("tools/list", {})["result"]["tools"]
        tool = next((t for t in tools if t["name"] == "number_stats"), None)
        self.assertIsNotNone(tool, tools)
        self.assertEqual(tool["inputSchema"]["required"], ["numbers"])

    def test_number_stats_counts_and_averages_numbers(self):
        response = self.server.call({"numbers": [1, 2, 2]})
        self.assertFalse(is_error(response), response)
        self.assertEqual(response["result"]["structuredContent"], {"count": 3, "mean": 1.67, "min": 1, "max": 2})

    def test_number_stats_refuses_an_empty_list(self):
        self.assertTrue(is_error(self.server.call({"numbers": []})))

    def test_the_host_refuses_arguments_that_do_not_fit_the_schema(self):
        self.assertTrue(is_error(self.server.call({"numbers": "one, two"})))


if __name__ == "__main__":
    unittest.main()
