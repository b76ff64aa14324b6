#!/usr/bin/env python3
"""Drives an mcp-wasm-host server bound to a profile with the official MCP
Python SDK, over Streamable HTTP (--url, e.g. http://127.0.0.1:PORT/mcp/NAME)
or over stdio (--plugins and --server-arg, e.g. `--server-arg=--profile
--server-arg=NAME`).

In one session it checks that:

* tools/list (every page) is exactly --expect-tools;
* tools/call of --call NAME with --args JSON is a result (not a JSON-RPC
  error) whose text holds --expect-text;
* tools/call of each of --hidden (tools the server serves, which the
  profile leaves out) is the JSON-RPC error of a tool that does not exist:
  code -32602, and the same code, message and data as a call of a name no
  plugin serves, once that name stands in for the hidden one.

On success it prints a one-line JSON summary on stdout and exits 0; on
failure `profile_client: FAIL: <reason>` on stderr and exit 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from sdk_client import PASSED_ENV, MCPError, fail, list_all_tools, result_text, run_main

# A name no plugin serves, of the same length as none of the hidden ones.
NOTHING = "no_such_tool__profile_client"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--server", metavar="BIN", help="the mcp-wasm-host binary (stdio)")
    p.add_argument("--url", metavar="URL", help="the MCP endpoint of a running server")
    p.add_argument("--plugins", metavar="DIR", help="stdio: passed as `serve --plugins DIR`")
    p.add_argument("--server-arg", action="append", default=[], metavar="ARG",
                   help="stdio: one more argument of `serve` (repeatable)")
    p.add_argument("--expect-tools", required=True, metavar="A,B",
                   help="the tools the profile serves, comma-separated")
    p.add_argument("--call", required=True, metavar="NAME")
    p.add_argument("--args", default="{}", metavar="JSON")
    p.add_argument("--expect-text", default="", metavar="TEXT")
    p.add_argument("--hidden", required=True, metavar="A,B",
                   help="tools the server serves that the profile leaves out")
    p.add_argument("--timeout", type=float, default=60.0)
    a = p.parse_args(argv)
    if (a.url is None) == (a.plugins is None):
        p.error("give --url (HTTP) or --plugins (stdio)")
    return a


async def call_error(session: ClientSession, name: str) -> dict[str, Any]:
    """The JSON-RPC error of calling `name`, which must be one."""
    try:
        result = await session.call_tool(name, {})
    except MCPError as e:
        return e.error.model_dump(mode="json", exclude_none=True)
    fail(f"tools/call {name}: expected a JSON-RPC error, got a result "
         f"(is_error={result.is_error}): {result_text(result)!r}")


async def check(session: ClientSession, a: argparse.Namespace) -> dict[str, Any]:
    await session.initialize()
    _, tools = await list_all_tools(session, None)
    names = [t.name for t in tools]
    expected = set(filter(None, a.expect_tools.split(",")))
    if set(names) != expected or len(names) != len(set(names)):
        fail(f"tools/list: got {sorted(names)}, expected {sorted(expected)}")
    try:
        result = await session.call_tool(a.call, json.loads(a.args))
    except MCPError as e:
        fail(f"tools/call {a.call}: JSON-RPC error {e.code}: {e.message}")
    text = result_text(result)
    if a.expect_text not in text:
        fail(f"tools/call {a.call}: text {text!r} does not contain {a.expect_text!r}")
    unknown = await call_error(session, NOTHING)
    hidden = {}
    for name in filter(None, a.hidden.split(",")):
        error = await call_error(session, name)
        if error.get("code") != -32602:
            fail(f"tools/call {name} (hidden): expected code -32602, got {error}")
        # The same bytes as for a name nothing serves, names aside.
        as_unknown = json.dumps(error, sort_keys=True).replace(json.dumps(name)[1:-1], NOTHING)
        if as_unknown != json.dumps(unknown, sort_keys=True):
            fail(f"tools/call {name} (hidden) is told apart from an unknown tool: {error} vs {unknown}")
        hidden[name] = error
    return {"ok": True, "tools": sorted(names), "text": text, "unknown": unknown, "hidden": hidden}


async def run(a: argparse.Namespace) -> dict[str, Any]:
    with anyio.fail_after(a.timeout):
        if a.url is not None:
            async with streamable_http_client(a.url) as (read, write):
                async with ClientSession(read, write) as session:
                    return await check(session, a)
        env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
        params = StdioServerParameters(
            command=a.server, args=["serve", "--plugins", a.plugins, *a.server_arg], env=env or None
        )
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=a.timeout) as session:
                return await check(session, a)


def main(argv: list[str] | None = None) -> int:
    return run_main("profile_client", run, parse_args(argv), "is the server answering?")


if __name__ == "__main__":
    sys.exit(main())
