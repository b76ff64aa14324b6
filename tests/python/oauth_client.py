#!/usr/bin/env python3
"""Drives an mcp-wasm-host server that is an OAuth resource server with the
official MCP Python SDK over Streamable HTTP, sending an access token as
`Authorization: Bearer TOKEN` on every request (the SDK's HTTP client with
that header).

With --token it initializes a session, lists every tool (following
`next_cursor`), calls `base64_encode` with `{"text": "hi"}` and calls
`base64_decode`, which the token must not grant: that call must fail with a
JSON-RPC error. The summary holds the tool names, the encoded text, the
refusal's message and code.

With --expect-401 it connects without a token and expects `initialize` to
fail (the server answers 401; the SDK raises an error for it); the summary
holds the error.

On success it prints a one-line JSON summary on stdout and exits 0; on
failure `oauth_client: FAIL: <reason>` on stderr and exit 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import PaginatedRequestParams

from sdk_client import CheckFailed, MCPError, fail, find_failure, result_text, run_main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--server", metavar="BIN", help="the mcp-wasm-host binary (unused: the server runs already)")
    p.add_argument("--url", required=True, metavar="URL", help="the MCP endpoint of a running server")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--token", metavar="JWT", help="the access token to send")
    who.add_argument("--expect-401", action="store_true", help="send no token and expect HTTP 401")
    p.add_argument("--timeout", type=float, default=60.0)
    return p.parse_args(argv)


async def with_token(a: argparse.Namespace) -> dict[str, Any]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {a.token}"})
    async with http, streamable_http_client(a.url, http_client=http) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools: list[str] = []
            cursor: str | None = None
            while True:
                page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
                tools += [t.name for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    break
            result = await session.call_tool("base64_encode", {"text": "hi"})
            if result.is_error:
                fail(f"base64_encode failed: {result_text(result)}")
            try:
                denied = await session.call_tool("base64_decode", {"text": "aGk="})
            except MCPError as e:
                refused, code = e.message, e.code
            else:
                fail(f"base64_decode was not refused: {result_text(denied)}")
    return {
        "ok": True,
        "tools": sorted(tools),
        "encoded": result_text(result),
        "refused": refused,
        "refused_code": code,
    }


async def without_token(a: argparse.Namespace) -> dict[str, Any]:
    try:
        async with streamable_http_client(a.url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
    except BaseException as raw:  # noqa: BLE001 - the refusal arrives wrapped
        e = find_failure(raw)
        text = f"{type(e).__name__}: {e}"
        if isinstance(e, CheckFailed) or isinstance(e, TimeoutError):
            raise
        return {"ok": True, "refused": True, "error": text}
    fail("the server let a client without a token in")


async def run(a: argparse.Namespace) -> dict[str, Any]:
    with anyio.fail_after(a.timeout):
        if a.expect_401:
            return await without_token(a)
        return await with_token(a)


def main(argv: list[str] | None = None) -> int:
    return run_main("oauth_client", run, parse_args(argv), "is the server answering?")


if __name__ == "__main__":
    sys.exit(main())
