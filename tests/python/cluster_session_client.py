#!/usr/bin/env python3
"""Keeps one MCP session at 2025-11-25 through a load balancer in front of
replicas that share their sessions (host/tests/all/cluster_sessions.rs),
with the official MCP Python SDK over Streamable HTTP.

It initializes at 2025-11-25 (the SDK's transport keeps the server's
`Mcp-Session-Id` and sends it on every later request), calls the kvnotes
tool `add-note` `--notes` times (`note 1`, `note 2`, …), then `notes`, and
ends the session (the SDK's DELETE) when it leaves. With no affinity, the
requests land on the replicas in turn; the counts come out 1, 2, 3… only if
the session, and its `scope = "session"` bucket, are the same on each.

On success it prints a one-line JSON summary on stdout (`protocol_version`,
`counts`, `notes`) and exits 0; on failure `cluster_session_client: FAIL:
<reason>` on stderr and exit 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import anyio

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from revisions_client import connect_at
from sdk_client import fail, result_text, run_main

REVISION = "2025-11-25"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--server", metavar="BIN", help="the mcp-wasm-host binary (unused: the cluster runs already)")
    p.add_argument("--url", required=True, metavar="URL", help="the MCP endpoint of the load balancer")
    p.add_argument("--notes", type=int, default=6, help="how many notes to add")
    p.add_argument("--timeout", type=float, default=60.0)
    return p.parse_args(argv)


def value_of(result: Any, tool: str) -> Any:
    if result.is_error:
        fail(f"{tool} failed: {result_text(result)}")
    content = result.structured_content or {}
    if "result" not in content:
        fail(f"{tool} returned no structured result: {result_text(result)}")
    return content["result"]


async def run(a: argparse.Namespace) -> dict[str, Any]:
    with anyio.fail_after(a.timeout):
        async with streamable_http_client(a.url) as (read, write):
            async with ClientSession(read, write) as session:
                answered = await connect_at(session, REVISION)
                counts = []
                for n in range(1, a.notes + 1):
                    added = await session.call_tool("add-note", {"text": f"note {n}"})
                    counts.append(value_of(added, "add-note"))
                notes = value_of(await session.call_tool("notes", {}), "notes")
    return {"protocol_version": answered["protocol_version"], "counts": counts, "notes": notes}


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    return run_main("cluster_session_client", run, a, "the cluster never answered")


if __name__ == "__main__":
    sys.exit(main())
