#!/usr/bin/env python3
"""Checks the resources, prompts and completions an mcp-wasm-host server
serves from the `conformance` test plugin, with the official MCP Python SDK
(`mcp` 2.x: ClientSession), over stdio (a server it starts) or Streamable
HTTP (`--url`).

It lists the resources and templates, reads the text, binary and template
resources, reads an unknown URI (an MCPError), lists the prompts, gets a
prompt with its arguments filled in, gets one with a missing argument (an
MCPError) and completes an argument. Prints a one-line JSON summary and
exits 0, or `served-client: FAIL: reason` on stderr and exits 1.

Usage:
  served_client.py --server BIN --plugins DIR
  served_client.py --server BIN --url URL
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

from sdk_client import PASSED_ENV, MCPError, fail, run_main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="served-client", description=__doc__)
    p.add_argument("--server", required=True, help="the mcp-wasm-host binary")
    p.add_argument("--plugins", help="the plugins directory (stdio)")
    p.add_argument("--url", help="the server's Streamable HTTP endpoint")
    p.add_argument("--timeout", type=float, default=60.0)
    a = p.parse_args(argv)
    if (a.plugins is None) == (a.url is None):
        p.error("give --plugins or --url")
    a.env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    return a


def transport(a: argparse.Namespace) -> Any:
    if a.url is not None:
        return streamable_http_client(a.url)
    params = StdioServerParameters(command=a.server, args=["serve", "--plugins", a.plugins], env=a.env or None)
    return stdio_client(params, errlog=sys.stderr)


async def run(a: argparse.Namespace) -> dict[str, Any]:
    async with transport(a) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=a.timeout) as session:
            init = await session.initialize()
            caps = init.capabilities
            if caps.resources is None or caps.prompts is None or caps.completions is None:
                fail(f"the server does not declare resources, prompts and completions: {caps}")

            resources = [str(r.uri) for r in (await session.list_resources()).resources]
            for uri in ("test://static-text", "test://static-binary", "test://watched-resource"):
                if uri not in resources:
                    fail(f"resources/list lacks {uri}: {resources}")
            templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
            if templates != ["test://template/{id}/data"]:
                fail(f"resources/templates/list: {templates}")

            text = (await session.read_resource("test://static-text")).contents[0]
            if not isinstance(text, types.TextResourceContents) or "static text resource" not in text.text:
                fail(f"resources/read test://static-text: {text}")
            blob = (await session.read_resource("test://static-binary")).contents[0]
            if not isinstance(blob, types.BlobResourceContents) or base64.b64decode(blob.blob)[:4] != b"\x89PNG":
                fail(f"resources/read test://static-binary: {blob}")
            data = (await session.read_resource("test://template/7/data")).contents[0]
            if not isinstance(data, types.TextResourceContents) or json.loads(data.text)["id"] != "7":
                fail(f"resources/read test://template/7/data: {data}")
            try:
                await session.read_resource("test://nothing-here")
                fail("resources/read of an unknown URI succeeded")
            except MCPError as e:
                unknown_error = e.error.code

            prompts = [p.name for p in (await session.list_prompts()).prompts]
            if "test_prompt_with_arguments" not in prompts:
                fail(f"prompts/list: {prompts}")
            got = await session.get_prompt("test_prompt_with_arguments", {"arg1": "one", "arg2": "two"})
            said = got.messages[0].content
            if not isinstance(said, types.TextContent) or said.text != "Prompt with arguments: arg1='one', arg2='two'":
                fail(f"prompts/get: {got}")
            try:
                await session.get_prompt("test_prompt_with_arguments", {"arg1": "one"})
                fail("prompts/get without a required argument succeeded")
            except MCPError as e:
                missing_error = e.error.code

            done = await session.complete(
                types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "te"},
            )
            if done.completion.values != ["test", "testValue1"]:
                fail(f"completion/complete: {done.completion}")
            return {
                "transport": "http" if a.url else "stdio",
                "resources": len(resources),
                "templates": len(templates),
                "prompts": len(prompts),
                "unknown_uri_error": unknown_error,
                "missing_argument_error": missing_error,
                "completion": done.completion.values,
            }


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    return run_main("served-client", run, a, f"{a.timeout} s")


if __name__ == "__main__":
    sys.exit(main())
