#!/usr/bin/env python3
"""Checks an mcp-wasm-host server at every MCP protocol revision with the
official MCP Python SDK, over stdio or over Streamable HTTP.

For each --revision (default: all five), one session:

* forces that revision: an `initialize` request proposing it (2024-11-05 to
  2025-11-25), or a `server/discover` probe (2026-07-28, which has no
  handshake), and checks that the server agreed to exactly that revision;
* lists every tool, following `next_cursor` (each page holds at most
  --page-size tools, no duplicates), and compares with --expect-tools;
* calls `structured` {"text": "a b"} and checks its text and
  `structured_content` (the SDK also checks it against the output schema);
* calls `structured` {"text": 5}, which breaks the input schema: before
  2025-11-25 that must be a JSON-RPC error -32602, from 2025-11-25 on a
  result with `is_error` true (SEP-1303);
* calls a tool that does not exist: JSON-RPC error -32602 at every revision;
* calls `log_progress` with a `progress_callback`: the server must report
  progress 0, 50 and 100 of 100, in order, before the result; the log
  messages the client received (after `logging/setLevel debug`, or at
  2026-07-28 the per-request `logLevel` opt-in) are reported in the summary.

With --auto, it also connects once with the SDK's high-level `Client` in its
default `mode="auto"`, recording every request the client sends and the
answer to each: the summary shows which methods were tried in which order and
the protocol version the client ended on.

The tools come from the `errors` and `many` test plugins (the Rust test
serves them). Over stdio each session starts its own
`SERVER serve --plugins DIR --page-size N [SERVER_ARG...]`; over HTTP (--url) every session
talks to the one server already listening there.

On success it prints a one-line JSON summary on stdout and exits 0; on failure
`revisions_client: FAIL: <reason>` on stderr and exit 1.

Example:
  .venv/bin/python tests/python/revisions_client.py --server target/debug/mcp-wasm-host \\
      --plugins /tmp/plugins --page-size 10 --auto
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import anyio

from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.types import PaginatedRequestParams

from sdk_client import PASSED_ENV, MCPError, fail, result_text, run_main

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
# The revision from which arguments that break the input schema are a tool
# result with is_error, not a JSON-RPC error (SEP-1303).
SCHEMA_ERRORS_AS_RESULTS_FROM = "2025-11-25"
# The revision without the initialize handshake.
MODERN = "2026-07-28"
INVALID_PARAMS = -32602
UNKNOWN_TOOL = "no_such_tool__revisions_client"
MAX_PAGES = 1000


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Check an mcp-wasm-host server at every MCP revision with the official MCP Python SDK.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    p.add_argument("--server", required=True, metavar="BIN", help="the mcp-wasm-host binary (stdio)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--plugins", metavar="DIR", help="stdio: start `BIN serve --plugins DIR` per session")
    where.add_argument("--url", metavar="URL", help="Streamable HTTP: the MCP endpoint of a running server")
    p.add_argument(
        "--page-size", type=int, required=True, metavar="N",
        help="the server's page size (passed to it over stdio): no tools/list page may hold more",
    )
    p.add_argument(
        "--server-arg", action="append", default=[], metavar="ARG",
        help="stdio: an extra argument for the server (repeatable; write --server-arg=--flag for one that starts with -)",
    )
    p.add_argument(
        "--revision", action="append", choices=REVISIONS, metavar="VERSION",
        help=f"a revision to check (repeatable; default all: {', '.join(REVISIONS)})",
    )
    p.add_argument("--expect-tools", type=int, metavar="N", help="the number of tools the server must list")
    p.add_argument("--auto", action="store_true", help="also connect with Client(mode='auto') and report")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="limit for the whole run")
    a = p.parse_args(argv)
    a.revisions = a.revision or list(REVISIONS)
    a.env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    return a


def transport(a: argparse.Namespace) -> Any:
    """A fresh transport context: a new server process over stdio, or a new
    HTTP session to the running server."""
    if a.url is not None:
        return streamable_http_client(a.url)
    args = ["serve", "--plugins", a.plugins, "--page-size", str(a.page_size), *a.server_arg]
    return stdio_client(StdioServerParameters(command=a.server, args=args, env=a.env or None), errlog=sys.stderr)


class Recorder:
    """Wraps a transport's streams and records every request the client
    sends and how each was answered, for the `mode="auto"` report."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []
        self._by_id: dict[Any, dict[str, Any]] = {}

    def sent(self, message: Any) -> None:
        if isinstance(message, types.JSONRPCRequest):
            entry: dict[str, Any] = {"method": message.method}
            params = message.params or {}
            if message.method == "initialize":
                entry["proposed"] = params.get("protocolVersion")
            meta_version = (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
            if meta_version is not None:
                entry["meta_version"] = meta_version
            self.exchanges.append(entry)
            self._by_id[message.id] = entry
        elif isinstance(message, types.JSONRPCNotification):
            self.exchanges.append({"notification": message.method})

    def received(self, message: Any) -> None:
        if isinstance(message, types.JSONRPCResponse):
            entry = self._by_id.get(message.id)
            if entry is not None:
                result = message.result
                entry["answer"] = "result"
                if "protocolVersion" in result:
                    entry["protocol_version"] = result["protocolVersion"]
                if "supportedVersions" in result:
                    entry["supported_versions"] = result["supportedVersions"]
        elif isinstance(message, types.JSONRPCError):
            entry = self._by_id.get(message.id)
            if entry is not None:
                entry["answer"] = "error"
                entry["code"] = message.error.code


class _RecordingWrite:
    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self._inner, self._recorder = inner, recorder

    async def send(self, item: Any, /) -> None:
        self._recorder.sent(getattr(item, "message", None))
        await self._inner.send(item)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RecordingWrite:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._inner.__aexit__(*exc)


class _RecordingRead:
    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self._inner, self._recorder = inner, recorder

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._recorder.received(getattr(item, "message", None))
        return item

    def __aiter__(self) -> _RecordingRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _RecordingRead:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._inner.__aexit__(*exc)


@asynccontextmanager
async def recording(inner: Any, recorder: Recorder) -> AsyncIterator[tuple[Any, Any]]:
    async with inner as (read, write):
        yield _RecordingRead(read, recorder), _RecordingWrite(write, recorder)


async def connect_at(session: ClientSession, revision: str) -> dict[str, Any]:
    """Negotiates exactly `revision` and returns what the server answered."""
    if revision == MODERN:
        # No handshake: `server/discover` at the newest modern revision
        # (which is this one), then every request carries the version in _meta.
        result = await session.discover()
        if revision not in result.supported_versions:
            fail(f"server/discover: {revision} is not among the supported versions {result.supported_versions}")
        answered = {"supported_versions": list(result.supported_versions)}
    else:
        # ClientSession.initialize() always proposes the newest handshake
        # revision; to force an older one, send the same request with ours and
        # install the answer as the SDK itself does.
        result = await session.send_request(
            types.InitializeRequest(
                params=types.InitializeRequestParams(
                    protocol_version=revision,
                    capabilities=types.ClientCapabilities(),
                    client_info=types.Implementation(name="revisions_client", version="0"),
                )
            ),
            types.InitializeResult,
        )
        if result.protocol_version != revision:
            fail(f"initialize proposing {revision}: the server answered {result.protocol_version}")
        session.adopt(result)
        await session.send_notification(types.InitializedNotification())
        answered = {"protocol_version": result.protocol_version}
    if session.protocol_version != revision:
        fail(f"the client negotiated {session.protocol_version}, not {revision}")
    info = session.server_info
    answered["server"] = f"{info.name} {info.version}" if info is not None else None
    return answered


async def list_all_tools(session: ClientSession, page_size: int) -> tuple[list[int], list[str]]:
    sizes: list[int] = []
    names: list[str] = []
    cursor: str | None = None
    while True:
        if len(sizes) >= MAX_PAGES:
            fail(f"tools/list still hands out cursors after {MAX_PAGES} pages")
        page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        sizes.append(len(page.tools))
        if len(page.tools) > page_size:
            fail(f"tools/list page {len(sizes)} holds {len(page.tools)} tools, more than {page_size}")
        for tool in page.tools:
            if tool.name in names:
                fail(f"tools/list lists {tool.name!r} twice")
            names.append(tool.name)
        cursor = page.next_cursor
        if cursor is None:
            return sizes, names


async def expect_rpc_error(session: ClientSession, name: str, arguments: dict[str, Any], what: str) -> dict:
    try:
        result = await session.call_tool(name, arguments)
    except MCPError as e:
        if e.code != INVALID_PARAMS:
            fail(f"{what}: expected JSON-RPC error {INVALID_PARAMS}, got {e.code}: {e.message}")
        return {"kind": "jsonrpc_error", "code": e.code, "message": e.message}
    fail(f"{what}: expected JSON-RPC error {INVALID_PARAMS}, got a result "
         f"(is_error={result.is_error}): {result_text(result)!r}")


async def check_revision(a: argparse.Namespace, revision: str) -> dict[str, Any]:
    logs: list[dict[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append({"level": params.level, "data": params.data})

    # At 2026-07-28 log delivery is a per-request opt-in (`_meta` logLevel),
    # which `log_level` stamps on every request; it has no effect before.
    async with transport(a) as (read, write):
        async with ClientSession(
            read, write, read_timeout_seconds=a.timeout, logging_callback=on_log, log_level="debug",
        ) as session:
            negotiated = await connect_at(session, revision)
            sizes, names = await list_all_tools(session, a.page_size)
            if a.expect_tools is not None and len(names) != a.expect_tools:
                fail(f"tools/list: {len(names)} tools, expected {a.expect_tools}: {names}")

            ok = await session.call_tool("structured", {"text": "a b"})
            if ok.is_error:
                fail(f"structured {{'text': 'a b'}} failed: {result_text(ok)!r}")
            want = {"text": "a b", "bytes": 3, "words": ["a", "b"]}
            if ok.structured_content != want:
                fail(f"structured: structured_content {ok.structured_content!r}, expected {want!r}")

            bad_args = {"text": 5}
            what = f"structured {bad_args} (breaks the input schema) at {revision}"
            if revision >= SCHEMA_ERRORS_AS_RESULTS_FROM:
                try:
                    bad = await session.call_tool("structured", bad_args)
                except MCPError as e:
                    fail(f"{what}: expected a result with is_error true, got JSON-RPC error {e.code}: {e.message}")
                if not bad.is_error:
                    fail(f"{what}: expected is_error true, got a result: {result_text(bad)!r}")
                invalid = {"kind": "is_error_result", "text": result_text(bad)}
            else:
                invalid = await expect_rpc_error(session, "structured", bad_args, what)

            unknown = await expect_rpc_error(session, UNKNOWN_TOOL, {}, f"unknown tool at {revision}")

            if revision != MODERN:
                await session.set_logging_level("debug")
            progress: list[dict[str, Any]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append({"progress": value, "total": total, "message": message})

            done = await session.call_tool("log_progress", {}, progress_callback=on_progress)
            if done.is_error or result_text(done) != "logged":
                fail(f"log_progress: {result_text(done)!r} (is_error={done.is_error})")
            got = [(p["progress"], p["total"]) for p in progress]
            if got != [(0, 100), (50, 100), (100, 100)]:
                fail(f"log_progress at {revision}: progress {progress}, expected 0, 50, 100 of 100")

    return {
        "revision": revision,
        "negotiated": session.protocol_version,
        **negotiated,
        "page_sizes": sizes,
        "tools": len(names),
        "structured_content": ok.structured_content,
        "invalid_arguments": invalid,
        "unknown_tool": unknown,
        "progress": progress,
        "logs": logs,
    }


async def check_auto(a: argparse.Namespace) -> dict[str, Any]:
    recorder = Recorder()
    async with Client(recording(transport(a), recorder), mode="auto", read_timeout_seconds=a.timeout) as client:
        version = client.protocol_version
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        if "structured" not in names:
            fail(f"Client(mode='auto') at {version}: `structured` is not on the first page: {sorted(names)}")
        result = await client.call_tool("structured", {"text": "x"})
        if result.is_error or result.structured_content != {"text": "x", "bytes": 1, "words": ["x"]}:
            fail(f"Client(mode='auto') at {version}: structured {{'text': 'x'}} gave {result!r}")
    return {"negotiated": version, "exchanges": recorder.exchanges}


async def run(a: argparse.Namespace) -> dict[str, Any]:
    with anyio.fail_after(a.timeout):
        revisions = [await check_revision(a, r) for r in a.revisions]
        auto = await check_auto(a) if a.auto else None
    summary: dict[str, Any] = {
        "ok": True,
        "transport": "http" if a.url is not None else "stdio",
        "revisions": revisions,
    }
    if auto is not None:
        summary["auto"] = auto
    return summary


def main(argv: list[str] | None = None) -> int:
    return run_main("revisions_client", run, parse_args(argv), "is the server answering?")


if __name__ == "__main__":
    sys.exit(main())
