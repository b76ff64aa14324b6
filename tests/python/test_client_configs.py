"""docs/clients.md: every client configuration it shows parses, has the shape
its client documents, and runs the real binary with what it names.

Each snippet is a fenced block after a `<!-- client: NAME, transport: T -->`
marker. JSON snippets are parsed and checked against the client's shape
(Claude Desktop and Cursor: servers under `mcpServers`, started by `command`
or, for Cursor, reached at `url`; Claude Code: `mcpServers` with `type`;
VS Code: `servers` with `type`, and every `${input:ID}` declared in `inputs`).
`claude mcp add` lines are split as a shell does and parsed as the CLI takes
them. Every URL is the one the doc's `serve --http` command serves. Every
mcp-wasm-host command line in the page (in any code block or span) names a
subcommand and flags that `--help` lists, and each stdio configuration,
with its paths pointed at real ones, starts a server that the official MCP
Python SDK client initializes and lists.

Needs MCP_WASM_HOST_BIN (the host binary); scripts/test.sh sets it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "clients.md"
CLIENTS = {"claude-desktop", "claude-code", "vscode", "cursor"}
TRANSPORTS = {"stdio", "http"}
MARKER = re.compile(r"<!-- client: ([a-z-]+), transport: ([a-z]+) -->\n```(\w+)\n(.*?)\n```", re.S)
BLOCK = re.compile(r"```(\w*)\n(.*?)\n```", re.S)
# The placeholders the page asks the reader to replace.
BIN, PLUGINS, POLICY = "/opt/mcp-wasm-host/bin/mcp-wasm-host", "/home/me/plugins", "/home/me/mcp-wasm-host.toml"
# The Windows examples: checked against the Linux snippets, not run.
WINDOWS = re.compile(r"<!-- windows: ([a-z-]+) -->\n```(\w+)\n(.*?)\n```", re.S)
WINDOWS_PATHS = {
    BIN: r"C:\Program Files\mcp-wasm-host\mcp-wasm-host.exe",
    PLUGINS: r"C:\Users\me\plugins",
    POLICY: r"C:\Users\me\mcp-wasm-host.toml",
}


def host_bin() -> str:
    path = os.environ.get("MCP_WASM_HOST_BIN")
    assert path, "set MCP_WASM_HOST_BIN to the mcp-wasm-host binary (scripts/test.sh does)"
    return path


def snippets() -> list[tuple[str, str, str, str]]:
    """(client, transport, language, text) of every marked block."""
    return MARKER.findall(DOC.read_text())


def snippet_id(s: tuple[str, str, str, str]) -> str:
    return f"{s[0]}-{s[1]}-{s[2]}"


@cache
def help_of(*subcommand: str) -> str:
    return subprocess.run([host_bin(), *subcommand, "--help"], capture_output=True, text=True, check=True).stdout


def subcommands() -> set[str]:
    text = help_of().split("Commands:", 1)[1].split("Options:", 1)[0]
    return set(re.findall(r"(?m)^  ([a-z]+) ", text))


def flags_of(subcommand: str) -> set[str]:
    return set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z0-9-]+)", help_of(subcommand)))


def served_url() -> str:
    """The URL of the doc's own `serve --http` command."""
    for line in host_lines():
        if "--http" in line:
            addr = line[line.index("--http") + 1]
            return f"http://{addr}/mcp"
    raise AssertionError("docs/clients.md shows no `serve --http` command")


def host_lines() -> list[list[str]]:
    """Every mcp-wasm-host command line in the page: the binary and what follows."""
    text = DOC.read_text()
    found = []
    code = [body for _, body in BLOCK.findall(text)] + re.findall(r"`([^`\n]+)`", BLOCK.sub("", text))
    for body in code:
        for line in body.splitlines():
            try:
                words = shlex.split(line)
            except ValueError:
                continue
            for i, word in enumerate(words):
                if Path(word).name == "mcp-wasm-host" and i + 1 < len(words):
                    found.append(words[i:])
    for _, _, lang, body in snippets():
        if lang == "json":
            for server in servers_of(json.loads(body)).values():
                if Path(server.get("command", "")).name == "mcp-wasm-host":
                    found.append([server["command"], *server.get("args", [])])
    return found


def servers_of(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return config.get("mcpServers") or config.get("servers") or {}


def test_every_client_and_transport_is_shown():
    shown = {(c, t) for c, t, _, _ in snippets()}
    assert shown == {(c, t) for c in CLIENTS for t in TRANSPORTS}, shown
    # Claude Code both ways: `.mcp.json` and `claude mcp add`.
    langs = {(t, lang) for c, t, lang, _ in snippets() if c == "claude-code"}
    assert langs == {(t, lang) for t in TRANSPORTS for lang in ("json", "sh")}, langs


def test_every_code_block_is_a_marked_snippet_or_a_command():
    marked = {body for _, _, _, body in snippets()} | {body for _, _, body in WINDOWS.findall(DOC.read_text())}
    for lang, body in BLOCK.findall(DOC.read_text()):
        assert body in marked or (lang == "sh" and "mcp-wasm-host serve" in body), f"unmarked block:\n{body}"


@pytest.mark.parametrize("snippet", [s for s in snippets() if s[2] == "json"], ids=snippet_id)
def test_each_json_snippet_has_its_clients_shape(snippet):
    client, transport, _, body = snippet
    config = json.loads(body)
    top = {"vscode": {"servers", "inputs"}}.get(client, {"mcpServers"})
    assert set(config) <= top and set(config) & top, f"{client}: top-level keys {set(config)}"
    servers = servers_of(config)
    assert len(servers) == 1, servers
    (server,) = servers.values()
    assert all(isinstance(v, str) for v in server.get("args", [])), server
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in server.get("env", {}).items()), server
    if client == "claude-desktop":
        # The config file takes only servers it starts; HTTP goes through a bridge.
        assert set(server) <= {"command", "args", "env"} and "command" in server, server
        if transport == "http":
            assert served_url() in server["args"], server
    elif client == "claude-code" or client == "vscode":
        assert server["type"] == transport, server
    elif client == "cursor":
        assert ("command" in server) != ("url" in server), server
        assert ("command" in server) == (transport == "stdio"), server
    if transport == "stdio":
        assert Path(server["command"]).name == "mcp-wasm-host", server
        assert "url" not in server
    elif client != "claude-desktop":
        assert server["url"] == served_url(), server
        assert "command" not in server
    if client == "vscode":
        declared = {i["id"] for i in config.get("inputs", [])}
        assert set(re.findall(r"\$\{input:([^}]+)\}", body)) <= declared, declared


@pytest.mark.parametrize("snippet", [s for s in snippets() if s[2] == "sh"], ids=snippet_id)
def test_each_claude_mcp_add_line_parses_as_the_cli_takes_it(snippet):
    client, transport, _, body = snippet
    assert client == "claude-code"
    (line,) = [line for line in body.splitlines() if line.strip()]
    words = shlex.split(line)
    assert words[:3] == ["claude", "mcp", "add"], words
    # Options may stand before or after the positionals (as the CLI's
    # parser takes them), up to `--`, after which comes the server's command.
    words, tail = words[3:], []
    if "--" in words:
        words, tail = words[: words.index("--")], words[words.index("--"):]
    positionals, options = [], {}
    while words:
        if words[0].startswith("-"):
            flag, value = words[0], words[1]
            assert flag in {"--transport", "-t", "--scope", "-s", "--env", "-e", "--header", "-H"}, flag
            options.setdefault(flag.lstrip("-")[0], []).append(value)
            words = words[2:]
        else:
            positionals.append(words.pop(0))
    assert options["t"] == [transport]
    assert all(s in {"local", "project", "user"} for s in options.get("s", []))
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", e) for e in options.get("e", []))
    assert all(re.fullmatch(r"[A-Za-z-]+: .+", h) for h in options.get("H", []))
    name, rest = positionals[0], positionals[1:]
    assert re.fullmatch(r"[A-Za-z0-9_-]+", name), name
    if transport == "stdio":
        assert rest == [] and Path(tail[1]).name == "mcp-wasm-host", (rest, tail)
    else:
        assert rest == [served_url()] and tail == [], (rest, tail)


def test_every_host_command_line_names_a_subcommand_and_flags_the_binary_has():
    lines = host_lines()
    assert len(lines) >= 8, lines
    known = subcommands()
    for words in lines:
        subcommand = words[1]
        assert subcommand in known, f"{subcommand!r} is no subcommand of mcp-wasm-host: {words}"
        flags = flags_of(subcommand)
        for word in words[2:]:
            if word.startswith("--"):
                assert word.split("=", 1)[0] in flags, f"`{subcommand} {word}` does not exist: {words}"


def test_each_stdio_configuration_starts_a_server_a_client_lists(tmp_path: Path):
    plugins, workspace = tmp_path / "plugins", tmp_path / "workspace"
    plugins.mkdir()
    (workspace / "plugins").mkdir(parents=True)
    (workspace / "mcp-wasm-host.toml").write_text("")
    (tmp_path / "policy.toml").write_text("")
    real = {BIN: host_bin(), PLUGINS: str(plugins), POLICY: str(tmp_path / "policy.toml"),
            "${workspaceFolder}": str(workspace)}
    commands = {tuple(words) for words in host_lines() if "--http" not in words}
    assert len(commands) >= 1
    for words in sorted(commands):
        args = []
        for word in words:
            for placeholder, value in real.items():
                word = word.replace(placeholder, value)
            args.append(word)
        params = StdioServerParameters(command=args[0], args=[*args[1:], "--no-cache"], cwd=str(tmp_path))

        async def run() -> list[str]:
            with anyio.fail_after(120):
                async with stdio_client(params) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        return [t.name for t in (await session.list_tools()).tools]

        assert anyio.run(run) == [], words


def test_windows_examples_are_the_linux_snippets_with_windows_paths():
    """The Windows examples say what the Linux snippets say, with the table's
    paths: Claude Desktop's JSON exactly, Claude Code's PowerShell line up to
    the policy file it leaves out."""
    found = {client: (lang, body) for client, lang, body in WINDOWS.findall(DOC.read_text())}
    assert set(found) == {"claude-desktop", "claude-code"}, found
    windows = lambda arg: WINDOWS_PATHS.get(arg, arg)  # noqa: E731
    linux = next(json.loads(b) for c, t, lang, b in snippets()
                 if (c, t, lang) == ("claude-desktop", "stdio", "json"))
    want = {name: {"command": windows(s["command"]), "args": [windows(a) for a in s["args"]]}
            for name, s in servers_of(linux).items()}
    assert json.loads(found["claude-desktop"][1]) == {"mcpServers": want}
    line = found["claude-code"][1]
    assert line.startswith("claude mcp add --transport stdio --scope project wasm-tools -- "), line
    command = line.split(" -- ", 1)[1]
    assert command == f'"{WINDOWS_PATHS[BIN]}" serve --plugins {WINDOWS_PATHS[PLUGINS]}', command
