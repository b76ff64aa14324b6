#!/usr/bin/env python3
"""Drives tool calls through a load balancer with the official MCP Python
SDK, and reports what it saw: the load of host/tests/all/replicas.rs.

`--workers` tasks call tools without pause, each call on a client of its own
(`Client` at 2026-07-28 over Streamable HTTP: `server/discover`, then
`tools/call`), so one failed request cannot spoil the next. The tools called
rotate over `--tool NAME=JSON` and those added later. A call counts as `ok`
only when it returns a result without `isError` whose text is the one given
with `--expect NAME=TEXT` (if any); anything else is an error of a kind:
`http_STATUS` (the load balancer's or the server's HTTP status), `jsonrpc_CODE`,
`tool_error`, `wrong_result`, `connect` or the exception's type.

Commands on stdin, one per line:
  phase LABEL        count the calls that end from now on under LABEL
  add NAME JSON      add a tool, with its arguments, to the rotation
  stop               let the calls in flight end, print the summary, exit

After each call ends, a line `done LABEL N` on stdout says N calls of the
current phase have ended. The summary is the last line: one JSON object
`{"phases": [{"label", "calls", "ok", "errors": {kind: n}}], "samples": {...}}`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

import anyio
import httpx2

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from sdk_client import result_text

MODERN = "2026-07-28"


class Load:
    """The rotation, the current phase and what each phase saw."""

    def __init__(self, tools: list[tuple[str, Any]], expect: dict[str, str]) -> None:
        self.tools = tools
        self.expect = expect
        self.next = 0
        self.stopping = False
        self.phases: list[dict[str, Any]] = []
        self.samples: dict[str, str] = {}
        self.begin("start")

    def begin(self, label: str) -> None:
        self.phases.append({"label": label, "calls": 0, "ok": 0, "errors": Counter()})

    def pick(self) -> tuple[str, Any]:
        tool = self.tools[self.next % len(self.tools)]
        self.next += 1
        return tool

    def record(self, kind: str | None, detail: str) -> None:
        phase = self.phases[-1]
        phase["calls"] += 1
        if kind is None:
            phase["ok"] += 1
        else:
            phase["errors"][kind] += 1
            self.samples.setdefault(kind, detail[:300])
        print(f"done {phase['label']} {phase['calls']}", flush=True)

    def summary(self) -> dict[str, Any]:
        phases = [{**p, "errors": dict(p["errors"])} for p in self.phases]
        return {"phases": phases, "samples": self.samples}


async def one_call(url: str, name: str, arguments: Any, expected: str | None) -> tuple[str | None, str]:
    """One call on a client of its own: `(None, text)` or `(kind, detail)`."""
    statuses: list[int] = []

    async def status(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            statuses.append(response.status_code)

    http = httpx2.AsyncClient(event_hooks={"response": [status]}, timeout=60.0)
    try:
        async with http, Client(streamable_http_client(url, http_client=http), mode=MODERN) as client:
            result = await client.call_tool(name, arguments)
    except BaseException as raw:  # noqa: BLE001 - every failure is counted by kind
        if isinstance(raw, (KeyboardInterrupt, anyio.get_cancelled_exc_class())):
            raise
        e = raw
        while isinstance(e, BaseExceptionGroup) and e.exceptions:
            e = e.exceptions[0]
        if statuses:
            return f"http_{statuses[0]}", f"{type(e).__name__}: {e}"
        if isinstance(e, MCPError):
            return f"jsonrpc_{e.code}", e.message
        if isinstance(e, httpx2.ConnectError):
            return "connect", str(e)
        return type(e).__name__, str(e)
    text = result_text(result)
    if result.is_error:
        return "tool_error", text
    if expected is not None and text != expected:
        return "wrong_result", f"{name}: {text!r}, expected {expected!r}"
    return None, text


async def worker(url: str, load: Load) -> None:
    while not load.stopping:
        name, arguments = load.pick()
        kind, detail = await one_call(url, name, arguments, load.expect.get(name))
        load.record(kind, detail)


async def commands(load: Load, done: anyio.Event) -> None:
    """Reads stdin in a thread, so the workers never wait on it."""
    while True:
        line = await anyio.to_thread.run_sync(sys.stdin.readline)
        if not line or line.strip() == "stop":
            load.stopping = True
            done.set()
            return
        verb, _, rest = line.strip().partition(" ")
        if verb == "phase":
            load.begin(rest)
        elif verb == "add":
            name, _, arguments = rest.partition(" ")
            load.tools.append((name, json.loads(arguments or "{}")))
        else:
            print(f"replica_client: unknown command {line.strip()!r}", file=sys.stderr)


async def run(a: argparse.Namespace) -> dict[str, Any]:
    tools = []
    for spec in a.tool:
        name, _, arguments = spec.partition("=")
        tools.append((name, json.loads(arguments or "{}")))
    expect = dict(spec.partition("=")[::2] for spec in a.expect)
    load = Load(tools, expect)
    done = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(commands, load, done)
        for _ in range(a.workers):
            tg.start_soon(worker, a.url, load)
    return load.summary()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--url", required=True, help="the MCP endpoint behind the load balancer")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--tool", action="append", default=[], metavar="NAME=JSON", help="a tool and its arguments")
    p.add_argument("--expect", action="append", default=[], metavar="NAME=TEXT", help="a tool's expected text")
    a = p.parse_args(argv)
    if not a.tool:
        p.error("give at least one --tool")
    summary = anyio.run(run, a)
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
