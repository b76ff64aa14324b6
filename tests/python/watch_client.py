#!/usr/bin/env python3
"""Checks the live plugins directory with the official MCP Python SDK client.

It starts `SERVER serve --plugins DIR`, initializes a session whose
`message_handler` records `notifications/tools/list_changed`, lists the tools,
copies --add FILE into DIR, waits for the notification, and lists the tools
again. The second list must hold every name in --expect-added, the first none
of them, and the session must have declared `tools.listChanged`.

On success it prints a one-line JSON summary on stdout and exits 0; on failure
it prints `watch_client: FAIL: <reason>` on stderr and exits 1. The server's
stderr passes through to ours.

Example:
  .venv/bin/python tests/python/watch_client.py --server target/debug/mcp-wasm-host \\
      --plugins /tmp/plugins --add target/plugins/testing/many.wasm --expect-added tool_00,tool_24
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import Any

import anyio

from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.types import PaginatedRequestParams

if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport
    from exceptiongroup import BaseExceptionGroup

# Shared with the listing/calling client beside this file.
from sdk_client import PASSED_ENV, CheckFailed, fail, run_main  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--server", required=True, metavar="BIN", help="the mcp-wasm-host binary")
    p.add_argument("--plugins", required=True, metavar="DIR", help="passed as `serve --plugins DIR`")
    p.add_argument("--add", required=True, metavar="FILE", help="a plugin file to copy into DIR")
    p.add_argument(
        "--expect-added", required=True, metavar="A,B",
        help="comma-separated tool names that must appear once FILE is in DIR",
    )
    p.add_argument(
        "--timeout", type=float, default=120.0, metavar="SECONDS",
        help="limit for the whole session (a safety net; default 120)",
    )
    a = p.parse_args(argv)
    a.expected = {n.strip() for n in a.expect_added.split(",") if n.strip()}
    a.env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    return a


async def tool_names(session: ClientSession) -> set[str]:
    names: set[str] = set()
    cursor: str | None = None
    while True:
        page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        names.update(t.name for t in page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return names


async def run(a: argparse.Namespace) -> dict[str, Any]:
    params = StdioServerParameters(
        command=a.server, args=["serve", "--plugins", a.plugins], env=a.env or None
    )
    changed = anyio.Event()
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            seen.append(message.method)
            changed.set()

    with anyio.fail_after(a.timeout):
        async with stdio_client(params, errlog=sys.stderr) as (read, write):
            async with ClientSession(
                read, write, read_timeout_seconds=a.timeout, message_handler=on_message
            ) as session:
                init = await session.initialize()
                tools_cap = init.capabilities.tools
                if tools_cap is None or not tools_cap.list_changed:
                    fail(f"the server does not declare tools.listChanged: {init.capabilities!r}")
                before = await tool_names(session)
                if before & a.expected:
                    fail(f"tools/list already shows {sorted(before & a.expected)} before --add")
                if seen:
                    fail("notifications/tools/list_changed arrived before anything changed")
                target = os.path.join(a.plugins, os.path.basename(a.add))
                shutil.copyfile(a.add, target)
                await changed.wait()
                after = await tool_names(session)
                missing = a.expected - after
                if missing:
                    fail(f"after notifications/tools/list_changed, tools/list lacks {sorted(missing)}")
                if not before <= after:
                    fail(f"tools vanished: {sorted(before - after)}")

    return {
        "ok": True,
        "protocol_version": init.protocol_version,
        "notifications": len(seen),
        "before": sorted(before),
        "after": sorted(after),
    }


def main(argv: list[str] | None = None) -> int:
    return run_main(
        "watch_client", run, parse_args(argv), "no notifications/tools/list_changed?"
    )


if __name__ == "__main__":
    sys.exit(main())
