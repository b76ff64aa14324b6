#!/usr/bin/env python3
"""Drives an mcp-wasm-host server over stdio with the official MCP Python SDK.

It starts `SERVER serve --plugins DIR [--page-size N] [SERVER_ARG...]`,
initializes a session, and checks, in one session:

* tools/list, following `next_cursor` over every page: each page holds at most
  N tools (when --page-size is given), no tool appears twice, no page after the
  first is empty, every tool has a non-empty description and an input schema
  with `"type": "object"`, and the union equals --expect-tools (if given);
* tools/call of --call NAME with --args JSON: the result is not an error and
  its text contains --expect-text (the SDK itself also checks structured
  content against the tool's output schema);
* each call listed in --call-all-file FILE, a JSON list of
  `{"name": ..., "arguments": {...}, "expect": "substring" or [..],
    "is_error": false}` (only `name` is required);
* tools/call of a tool that does not exist: a JSON-RPC error (MCPError) with
  code --unknown-tool-code (default -32602, as the MCP specification says),
  not a result.

On success it prints a one-line JSON summary on stdout and exits 0; on failure
it prints `sdk_client: FAIL: <reason>` on stderr and exits 1 (2 for bad usage).
The server's stderr passes through to ours.

Example:
  .venv/bin/python tests/python/sdk_client.py --server target/debug/mcp-wasm-host \\
      --plugins /tmp/plugins --page-size 2 --expect-tools word_count \\
      --call word_count --args '{"text": "a b c"}' --expect-text 'words: 3'
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, NoReturn

import anyio

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import PaginatedRequestParams

try:  # mcp 2.x
    from mcp import MCPError
except ImportError:  # mcp 1.x
    from mcp.shared.exceptions import McpError as MCPError  # type: ignore[no-redef]

if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport
    from exceptiongroup import BaseExceptionGroup

# More pages than this means the server keeps handing out cursors.
MAX_PAGES = 10_000
UNKNOWN_TOOL = "no_such_tool__sdk_client"
# Passed on to the server when set, on top of what the SDK passes by default.
# Passed on to a stdio server when set: the SDK gives the server only a
# default environment (HOME, PATH...), so a test's `--wait-for-load` by
# environment would otherwise never reach it, and a call could land on a
# plugin still compiling on a loaded machine.
PASSED_ENV = ("RUST_LOG", "RUST_BACKTRACE", "MCP_WASM_HOST_WAIT_FOR_LOAD")


class CheckFailed(Exception):
    """A check on the server's behaviour failed."""


def fail(message: str) -> NoReturn:
    raise CheckFailed(message)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Check an mcp-wasm-host server over stdio with the official MCP Python SDK.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    p.add_argument("--server", required=True, metavar="BIN", help="the mcp-wasm-host binary")
    p.add_argument("--plugins", required=True, metavar="DIR", help="passed as `serve --plugins DIR`")
    p.add_argument(
        "--runner", metavar="PROGRAM",
        help="runs the server as `PROGRAM BIN serve ...`: an emulator for a binary of another platform "
             "(qemu-aarch64, wine64; scripts/release.sh)",
    )
    p.add_argument(
        "--runner-arg", action="append", default=[], metavar="ARG",
        help="an argument of the runner, before BIN (repeatable; write --runner-arg=-R for one that starts with -)",
    )
    p.add_argument(
        "--page-size", type=int, metavar="N",
        help="passed as `serve --page-size N`; each tools/list page must then hold at most N tools",
    )
    p.add_argument(
        "--server-arg", action="append", default=[], metavar="ARG",
        help="an extra argument appended to the server's command line (repeatable; write --server-arg=--flag for one that starts with -)",
    )
    p.add_argument(
        "--server-env", action="append", default=[], metavar="KEY=VALUE",
        help="an environment variable for the server (repeatable); the SDK passes the server only a few "
             "variables such as PATH and HOME, and this script adds RUST_LOG and RUST_BACKTRACE when set",
    )
    p.add_argument(
        "--expect-tools", metavar="A,B,C",
        help="comma-separated names: the listed tools must be exactly these",
    )
    p.add_argument("--call", metavar="NAME", help="a tool to call")
    p.add_argument("--args", default="{}", metavar="JSON", help="the call's arguments, a JSON object (default {})")
    p.add_argument("--expect-text", metavar="SUBSTRING", help="the call's text must contain this")
    p.add_argument(
        "--call-all-file", metavar="FILE",
        help='a JSON list of {"name", "arguments", "expect", "is_error"} calls to make in the same session',
    )
    p.add_argument(
        "--unknown-tool-code", default="-32602", metavar="CODE",
        help="the JSON-RPC error code expected for an unknown tool, or `any` (default -32602)",
    )
    p.add_argument(
        "--timeout", type=float, default=60.0, metavar="SECONDS",
        help="limit for the whole session (default 60)",
    )
    a = p.parse_args(argv)

    if a.page_size is not None and a.page_size < 1:
        p.error("--page-size must be at least 1")
    if a.runner_arg and not a.runner:
        p.error("--runner-arg needs --runner")
    if a.expect_text is not None and a.call is None:
        p.error("--expect-text needs --call")
    try:
        a.call_args = json.loads(a.args)
    except ValueError as e:
        p.error(f"--args is not JSON: {e}")
    if not isinstance(a.call_args, dict):
        p.error("--args must be a JSON object")
    a.env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    for item in a.server_env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            p.error(f"--server-env wants KEY=VALUE, got {item!r}")
        a.env[key] = value
    a.expected_tools = None
    if a.expect_tools is not None:
        a.expected_tools = {n.strip() for n in a.expect_tools.split(",") if n.strip()}
    if a.unknown_tool_code != "any":
        try:
            a.unknown_tool_code = int(a.unknown_tool_code)
        except ValueError:
            p.error("--unknown-tool-code must be an integer or `any`")

    a.calls = []
    if a.call is not None:
        a.calls.append({"name": a.call, "arguments": a.call_args, "expect": a.expect_text, "is_error": False})
    if a.call_all_file is not None:
        try:
            with open(a.call_all_file, encoding="utf-8") as f:
                extra = json.load(f)
        except (OSError, ValueError) as e:
            p.error(f"--call-all-file: {e}")
        if not isinstance(extra, list):
            p.error("--call-all-file must hold a JSON list")
        for i, c in enumerate(extra):
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                p.error(f"--call-all-file: entry {i} needs a string `name`")
            arguments = c.get("arguments", {})
            if not isinstance(arguments, dict):
                p.error(f"--call-all-file: entry {i}: `arguments` must be an object")
            expect = c.get("expect")
            if expect is not None and not isinstance(expect, (str, list)):
                p.error(f"--call-all-file: entry {i}: `expect` must be a string or a list of strings")
            a.calls.append({
                "name": c["name"],
                "arguments": arguments,
                "expect": expect,
                "is_error": bool(c.get("is_error", False)),
            })
    return a


def result_text(result: Any) -> str:
    """The text of a CallToolResult: its text blocks joined by newlines."""
    parts = []
    for block in result.content:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource" and getattr(block.resource, "text", None) is not None:
            parts.append(block.resource.text)
    return "\n".join(parts)


async def list_all_tools(session: ClientSession, page_size: int | None) -> tuple[list[int], list[Any]]:
    page_lengths: list[int] = []
    tools: list[Any] = []
    seen: dict[str, int] = {}
    seen_cursors: set[str] = set()
    cursor: str | None = None
    while True:
        if len(page_lengths) >= MAX_PAGES:
            fail(f"tools/list: still handing out cursors after {MAX_PAGES} pages")
        page_no = len(page_lengths) + 1
        page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        n = len(page.tools)
        page_lengths.append(n)
        if page_size is not None and n > page_size:
            fail(f"tools/list page {page_no} has {n} tools, more than --page-size {page_size}")
        if n == 0 and page_no > 1:
            fail(f"tools/list page {page_no} is empty: the previous page's next_cursor promised more tools")
        for tool in page.tools:
            if tool.name in seen:
                fail(f"tools/list: tool {tool.name!r} on page {page_no} was already listed on page {seen[tool.name]}")
            seen[tool.name] = page_no
            if not (tool.description or "").strip():
                fail(f"tools/list: tool {tool.name!r} has no description")
            if not isinstance(tool.input_schema, dict) or tool.input_schema.get("type") != "object":
                fail(f"tools/list: tool {tool.name!r} has an input schema without \"type\": \"object\": "
                     f"{json.dumps(tool.input_schema)}")
            tools.append(tool)
        cursor = page.next_cursor
        if cursor is None:
            break
        if cursor in seen_cursors:
            fail(f"tools/list: page {page_no} repeats an earlier next_cursor {cursor!r}")
        seen_cursors.add(cursor)
    return page_lengths, tools


async def check_call(session: ClientSession, call: dict) -> dict:
    name = call["name"]
    try:
        result = await session.call_tool(name, call["arguments"])
    except MCPError as e:
        fail(f"tools/call {name}: JSON-RPC error {e.code}: {e.message}")
    except RuntimeError as e:
        # The SDK raises this when structured content misses the output schema.
        fail(f"tools/call {name}: {e}")
    text = result_text(result)
    if bool(result.is_error) != call["is_error"]:
        want = "an error result (is_error true)" if call["is_error"] else "a result that is not an error"
        fail(f"tools/call {name}: expected {want}, got is_error={result.is_error}: {text!r}")
    expect = call["expect"]
    for substring in [expect] if isinstance(expect, str) else (expect or []):
        if substring not in text:
            fail(f"tools/call {name}: text {text!r} does not contain {substring!r}")
    return {
        "name": name,
        "is_error": bool(result.is_error),
        "text": text,
        "structured_content": result.structured_content,
        # The host's call receipt, as the SDK hands the result's `_meta` over.
        "receipt": (result.meta or {}).get("mcp-wasm-host/receipt"),
    }


async def check_unknown_tool(session: ClientSession, expected_code: int | str) -> dict:
    try:
        result = await session.call_tool(UNKNOWN_TOOL, {})
    except MCPError as e:
        if expected_code != "any" and e.code != expected_code:
            fail(f"tools/call of an unknown tool: expected JSON-RPC error code {expected_code}, "
                 f"got {e.code}: {e.message}")
        return {"code": e.code, "message": e.message}
    fail(f"tools/call of an unknown tool: expected a JSON-RPC error, got a result "
         f"(is_error={result.is_error}): {result_text(result)!r}")


async def run(a: argparse.Namespace) -> dict:
    server_args = ["serve", "--plugins", a.plugins]
    if a.page_size is not None:
        server_args += ["--page-size", str(a.page_size)]
    server_args += a.server_arg
    command = a.server
    if a.runner:
        command, server_args = a.runner, [*a.runner_arg, a.server, *server_args]
    params = StdioServerParameters(command=command, args=server_args, env=a.env or None)

    with anyio.fail_after(a.timeout):
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=a.timeout) as session:
                init = await session.initialize()
                page_lengths, tools = await list_all_tools(session, a.page_size)
                names = [t.name for t in tools]
                if a.expected_tools is not None and set(names) != a.expected_tools:
                    missing = sorted(a.expected_tools - set(names))
                    unexpected = sorted(set(names) - a.expected_tools)
                    fail(f"tools/list: missing {missing}, unexpected {unexpected}")
                results = [await check_call(session, c) for c in a.calls]
                unknown = await check_unknown_tool(session, a.unknown_tool_code)

    summary: dict[str, Any] = {
        "ok": True,
        "server": f"{init.server_info.name} {init.server_info.version}",
        "protocol_version": init.protocol_version,
        "pages": len(page_lengths),
        "page_sizes": page_lengths,
        "tools": len(tools),
        "tool_names": sorted(names),
    }
    if a.call is not None:
        summary["result_text"] = results[0]["text"]
        summary["structured_content"] = results[0]["structured_content"]
        summary["receipt"] = results[0]["receipt"]
    if a.call_all_file is not None:
        summary["calls"] = [{"name": r["name"], "is_error": r["is_error"], "text": r["text"]} for r in results]
    summary["unknown_tool_error"] = unknown
    return summary


def find_failure(e: BaseException) -> BaseException:
    """The most telling exception inside (possibly nested) exception groups."""
    if isinstance(e, BaseExceptionGroup):
        inner = [find_failure(x) for x in e.exceptions]
        for x in inner:
            if isinstance(x, CheckFailed):
                return x
        return inner[0] if inner else e
    return e


def run_main(prog: str, run: Any, a: argparse.Namespace, timeout_hint: str) -> int:
    """Runs `run(a)`, prints its summary as one JSON line (exit 0), or a
    plain `PROG: FAIL: reason` on stderr (exit 1). Shared by the scripts
    beside this one."""
    try:
        summary = anyio.run(run, a)
    except BaseException as raw:  # noqa: BLE001 - report every failure plainly
        if isinstance(raw, KeyboardInterrupt):
            raise
        e = find_failure(raw)
        if isinstance(e, CheckFailed):
            reason = str(e)
        elif isinstance(e, TimeoutError):
            reason = f"timed out after {a.timeout} s ({timeout_hint})"
        elif isinstance(e, MCPError) and e.message == "Connection closed":
            reason = "the server closed the connection (did it exit? its stderr is above)"
        elif isinstance(e, MCPError):
            reason = f"unexpected JSON-RPC error {e.code}: {e.message}"
        else:
            reason = f"{type(e).__name__}: {e}"
        print(f"{prog}: FAIL: {reason}", file=sys.stderr)
        return 1
    print(json.dumps(summary, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_main("sdk_client", run, parse_args(argv), "is the server answering on stdout?")


if __name__ == "__main__":
    sys.exit(main())
