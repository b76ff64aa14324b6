#!/usr/bin/env python3
"""Checks a guest's requests to the client at MCP 2026-07-28 (multi
round-trip requests, SEP-2322) with the official MCP Python SDK.

The `asker` test plugin's tools ask the client while they run. At 2026-07-28
the server answers such a call with `InputRequiredResult`; the SDK's
`Client` answers the input requests with its sampling, elicitation and roots
callbacks and calls the tool again with `inputResponses` and `requestState`.
This script checks that the guest gets every answer:

* `interview` asks the user two questions, one after the other (two rounds);
* `batch` asks the user, the model and the roots at once (one round).

With --url it talks to a Streamable HTTP server; with a second --url-b (a
replica sharing the first one's request-state key) it also drives the rounds
by hand with `allow_input_required=True`, sending each round to the other
replica, and checks the guest still gets both answers. Over stdio it starts
`SERVER serve --plugins DIR --config FILE`.

On success it prints a one-line JSON summary on stdout and exits 0; on failure
`input_required_client: FAIL: <reason>` on stderr and exit 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import anyio

from mcp import Client, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

from sdk_client import PASSED_ENV, fail, result_text, run_main

MODERN = "2026-07-28"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--server", required=True, metavar="BIN", help="the mcp-wasm-host binary (stdio)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--plugins", metavar="DIR", help="stdio: start `BIN serve --plugins DIR`")
    where.add_argument("--url", metavar="URL", help="Streamable HTTP: the MCP endpoint of a running server")
    p.add_argument("--url-b", metavar="URL", help="a second replica sharing the first one's key")
    p.add_argument("--config", metavar="FILE", help="stdio: the policy file")
    p.add_argument("--timeout", type=float, default=60.0)
    a = p.parse_args(argv)
    a.env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    return a


def transport(a: argparse.Namespace, url: str | None) -> Any:
    if url is not None:
        return streamable_http_client(url)
    args = ["serve", "--plugins", a.plugins]
    if a.config:
        args += ["--config", a.config]
    return stdio_client(StdioServerParameters(command=a.server, args=args, env=a.env or None), errlog=sys.stderr)


class Answers:
    """The client's side: what each callback answers, and what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(f"elicitation: {params.message}")
        answer = {"Name?": "Ada", "Colour?": "green"}.get(params.message, params.message.upper())
        return types.ElicitResult(action="accept", content={"answer": answer})

    async def sample(self, context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.asked.append("sampling")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Hello from the model"),
            model="test-model",
            stop_reason="endTurn",
        )

    async def roots(self, context: Any) -> types.ListRootsResult:
        self.asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///home/ada/project", name="project")])

    def client(self, a: argparse.Namespace, url: str | None) -> Client:
        return Client(
            transport(a, url),
            mode=MODERN,
            read_timeout_seconds=a.timeout,
            elicitation_callback=self.elicit,
            sampling_callback=self.sample,
            list_roots_callback=self.roots,
        )


def tool_json(result: types.CallToolResult, what: str) -> Any:
    if result.is_error:
        fail(f"{what} failed: {result_text(result)}")
    return json.loads(result_text(result))


async def automatic(a: argparse.Namespace) -> dict[str, Any]:
    """The SDK drives the rounds itself."""
    answers = Answers()
    async with answers.client(a, a.url) as client:
        version = client.protocol_version
        if version != MODERN:
            fail(f"the client negotiated {version}, not {MODERN}")
        interview = tool_json(
            await client.call_tool("interview", {"first": "Name?", "second": "Colour?"}), "interview"
        )
        if interview != {"first": {"answer": "Ada"}, "second": {"answer": "green"}}:
            fail(f"interview: the guest got {interview}")
        batch = tool_json(
            await client.call_tool(
                "batch", {"requests": [["who", "elicit"], ["greeting", "sample"], ["where", "roots"]]}
            ),
            "batch",
        )
        expected = [
            {"action": "accept", "content": {"answer": "WHO"}},
            {"text": "Hello from the model", "model": "test-model"},
            {"roots": [{"uri": "file:///home/ada/project", "name": "project"}]},
        ]
        if batch.get("answers") != expected:
            fail(f"batch: the guest got {batch}")
    return {"negotiated": version, "interview": interview, "asked": answers.asked}


async def across_replicas(a: argparse.Namespace) -> dict[str, Any]:
    """Each round goes to the other replica; the SDK's callbacks answer."""
    answers = Answers()
    args = {"first": "Name?", "second": "Colour?"}
    servers = []
    async with answers.client(a, a.url) as first, answers.client(a, a.url_b) as second:
        clients = [first, second]
        result: Any = await first.session.call_tool("interview", args, allow_input_required=True)
        servers.append("a")
        rounds = 0
        while isinstance(result, types.InputRequiredResult):
            rounds += 1
            if rounds > 4:
                fail("more than 4 rounds")
            responses: dict[str, Any] = {}
            for key, request in (result.input_requests or {}).items():
                if not isinstance(request, types.ElicitRequest):
                    fail(f"round {rounds}: unexpected request {request!r}")
                responses[key] = await answers.elicit(None, request.params)
            client = clients[rounds % 2]
            servers.append("ab"[rounds % 2])
            result = await client.session.call_tool(
                "interview",
                args,
                input_responses=responses,
                request_state=result.request_state,
                allow_input_required=True,
            )
        interview = tool_json(result, "interview across replicas")
        if interview != {"first": {"answer": "Ada"}, "second": {"answer": "green"}}:
            fail(f"interview across replicas: the guest got {interview}")
    return {"rounds": rounds, "servers": servers, "interview": interview}


async def run(a: argparse.Namespace) -> dict[str, Any]:
    with anyio.fail_after(a.timeout):
        summary: dict[str, Any] = {"ok": True, "transport": "stdio" if a.url is None else "http"}
        summary["automatic"] = await automatic(a)
        if a.url_b is not None:
            summary["replicas"] = await across_replicas(a)
    return summary


def main(argv: list[str] | None = None) -> int:
    return run_main("input_required_client", run, parse_args(argv), "is the server answering?")


if __name__ == "__main__":
    sys.exit(main())
