#!/usr/bin/env python3
"""Calls a tool as a task through a load balancer in front of replicas
that share their tasks (host/tests/all/cluster_tasks.rs), with the official
MCP Python SDK at 2026-07-28 over Streamable HTTP.

The SDK (mcp 2.3.0) has no tasks extension of its own, but it has the
extension seam tasks need (SEP-2133): this script's `Tasks` is a
`ClientExtension` that advertises `io.modelcontextprotocol/tasks` and
claims the `task` result of `tools/call`. Its resolver polls `tasks/get`
(sent with the SDK's own `send_request`, which adds the `Mcp-Name` header
SEP-2663 asks for) at the server's `pollIntervalMs` until the task ends,
and hands the SDK the inlined result. `Client.call_tool` then returns it
like any call's result. With no affinity, each poll may land on any
replica.

It starts `--tasks` calls of `--tool` at once (`{"seconds": N, "label":
"tK"}`), each through the same `Client` pinned to 2026-07-28. On success
it prints a one-line JSON summary on stdout (`protocol_version`; `tasks`:
each one's `label` and `text`; `statuses`: for each task, the statuses its
polls read, in order) and exits 0; on failure `cluster_task_client: FAIL: <reason>` on stderr
and exit 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, ClassVar, Literal

import anyio
from pydantic import ConfigDict

from mcp import Client, types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.types import RequestParams, Result

from sdk_client import fail, result_text, run_main

REVISION = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")


class TaskCreated(Result):
    """A `tools/call` answered with a task (`CreateTaskResult`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    poll_interval_ms: int | None = None


class TaskParams(RequestParams):
    task_id: str


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param: ClassVar[str | None] = "taskId"


class TaskState(Result):
    """What `tasks/get` reads: the status and, once ended, the result."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Tasks(ClientExtension):
    """The tasks extension, as far as a requester needs it: a call that
    becomes a task is polled with `tasks/get` until it ends. `polls` keeps
    the statuses each task's polls read."""

    identifier = TASKS

    def __init__(self) -> None:
        self.polls: dict[str, list[str]] = {}

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskCreated, resolve=self.resolve)]

    async def resolve(self, created: TaskCreated, ctx: ClaimContext) -> types.CallToolResult:
        statuses = self.polls.setdefault(created.task_id, [])
        while True:
            state = await ctx.session.send_request(
                GetTask(params=TaskParams(task_id=created.task_id)), TaskState
            )
            if state.task_id != created.task_id:
                fail(f"tasks/get of {created.task_id} answered for {state.task_id}")
            statuses.append(state.status)
            if state.status in TERMINAL:
                break
            # The client's poll interval, as the server asks (pollIntervalMs).
            interval = state.poll_interval_ms or created.poll_interval_ms or 100
            await anyio.sleep(min(interval, 1000) / 1000)
        if state.status != "completed" or state.result is None:
            fail(f"task {created.task_id} of {ctx.tool_name} ended {state.status}: {state.error or state.status_message}")
        return types.CallToolResult.model_validate(state.result, by_name=False)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--server", metavar="BIN", help="the mcp-wasm-host binary (unused: the cluster runs already)")
    p.add_argument("--url", required=True, metavar="URL", help="the MCP endpoint of the load balancer")
    p.add_argument("--tool", default="slow_compute", help="a tool that may run as a task")
    p.add_argument("--tasks", type=int, default=6, help="how many tasks to start at once")
    p.add_argument("--seconds", type=int, default=1, help="the `seconds` argument of each call")
    p.add_argument("--timeout", type=float, default=60.0)
    return p.parse_args(argv)


async def run(a: argparse.Namespace) -> dict[str, Any]:
    tasks = Tasks()
    done: dict[str, str] = {}
    with anyio.fail_after(a.timeout):
        async with Client(a.url, mode=REVISION, extensions=[tasks]) as client:

            async def one(label: str) -> None:
                result = await client.call_tool(a.tool, {"seconds": a.seconds, "label": label})
                if result.is_error:
                    fail(f"{a.tool} {label} failed: {result_text(result)}")
                done[label] = result_text(result)

            async with anyio.create_task_group() as group:
                for k in range(1, a.tasks + 1):
                    group.start_soon(one, f"t{k}")
            version = client.protocol_version
    if len(tasks.polls) != a.tasks:
        fail(f"{a.tasks} calls made {len(tasks.polls)} tasks: {tasks.polls}")
    by_label = sorted(done.items(), key=lambda kv: int(kv[0][1:]))
    polls = list(tasks.polls.values())
    return {
        "protocol_version": version,
        "tasks": [{"label": label, "text": text} for label, text in by_label],
        "statuses": polls,
    }


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    return run_main("cluster_task_client", run, a, "the cluster never answered")


if __name__ == "__main__":
    sys.exit(main())
