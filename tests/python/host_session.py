"""One MCP session with the real mcp-wasm-host binary, through the official MCP Python SDK, for the plugin tests.

`run_session(plugins, config, calls)` serves `plugins` under the policy file
`config`, lists the tools and makes `calls` (a list of (name, arguments)),
collecting the log messages the client receives, and returns
`Session(tools, results, logs)`. Optional `sampling` and `elicitation`
callbacks answer the server's requests to the client. `with_session(plugins,
config, body)` runs `body(session)` on a session instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Session:
    tools: dict[str, Any]
    results: list[Any]
    logs: list[Any] = field(default_factory=list)


def host_bin() -> str:
    # scripts/test.sh always sets this; a missing host is a failure, not a skip.
    path = os.environ.get("MCP_WASM_HOST_BIN")
    assert path, "set MCP_WASM_HOST_BIN to the mcp-wasm-host binary (scripts/test.sh does)"
    return path


def run_session(plugins: Path, config: Path, calls: list[tuple[str, dict]], **callbacks: Any) -> Session:
    params = StdioServerParameters(
        command=host_bin(),
        args=["serve", "--plugins", str(plugins), "--config", str(config), "--no-cache"],
    )
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    async def run() -> Session:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write, logging_callback=on_log, **callbacks) as session:
                    await session.initialize()
                    tools = {t.name: t for t in (await session.list_tools()).tools}
                    results = [await session.call_tool(name, args) for name, args in calls]
        return Session(tools, results, logs)

    return anyio.run(run)


def with_session(plugins: Path, config: Path, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Serves `plugins` under the policy file `config` and returns what
    `body(session)` returns, run on an initialized session."""
    params = StdioServerParameters(
        command=host_bin(),
        args=["serve", "--plugins", str(plugins), "--config", str(config), "--no-cache"],
    )

    async def run() -> Any:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await body(session)

    return anyio.run(run)


def text_of(result: Any) -> str:
    return "\n".join(b.text for b in result.content if getattr(b, "type", None) == "text")
