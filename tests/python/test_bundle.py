"""The MCP Bundle (.mcpb) for Claude Desktop, as a user gets it.

scripts/build-bundle.sh stages packaging/mcpb/manifest.json with the
installed static binary (the `installed_host` fixture) and runs the official
CLI (@anthropic-ai/mcpb, pinned in packaging/mcpb): `mcpb validate`, then
`mcpb pack`. The bundle is then unpacked with `mcpb unpack`, and the server
is started the way a desktop app starts it: the command, args and env come
from the official library's getMcpConfigForManifest (tests/python/
mcpb_launch.mjs), with `${__dirname}` and the user's settings substituted. The
official MCP Python SDK client lists the tools of a real plugin
(plugins/python/textstats, built by scripts/build-python-plugin.sh) and calls
one. Bad settings (a plugins folder that does not exist, a broken policy
file) stop the server with a message that names the setting and what to do.

Needs MCP_WASM_HOST_NODE (Node 22, with packaging/mcpb/node_modules installed
by scripts/setup-node.sh); scripts/test.sh sets it.
Run: `MCP_WASM_HOST_NODE=$(scripts/setup-node.sh) .venv/bin/python -m pytest tests/python/test_bundle.py`
(MCP_WASM_HOST_INSTALLED_BIN=PATH skips the install).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import find_toolchain, missing

REPO = Path(__file__).resolve().parents[2]
SOURCE_MANIFEST = REPO / "packaging" / "mcpb" / "manifest.json"
MCPB_PACKAGE = REPO / "packaging" / "mcpb" / "node_modules" / "@anthropic-ai" / "mcpb"
MCPB_CLI = MCPB_PACKAGE / "dist" / "cli" / "cli.js"
LAUNCH = Path(__file__).resolve().parent / "mcpb_launch.mjs"


def node() -> str:
    """Node 22, with the mcpb CLI that scripts/setup-node.sh installs beside it."""
    path = find_toolchain("MCP_WASM_HOST_NODE", "setup-node.sh")
    if not MCPB_CLI.is_file():
        missing("the mcpb CLI is not installed in packaging/mcpb/node_modules: run scripts/setup-node.sh (scripts/test.sh does)")
    return path


def mcpb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([node(), str(MCPB_CLI), *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def bundle(installed_host: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle")
    done = subprocess.run([str(REPO / "scripts" / "build-bundle.sh"), str(out), str(installed_host)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"build-bundle.sh failed:\n{done.stdout}{done.stderr}"
    assert "Manifest schema validation passes" in done.stderr, done.stderr
    path = Path(done.stdout.strip())
    version = json.loads(SOURCE_MANIFEST.read_text())["version"]
    assert path == out / f"mcp-wasm-host-{version}-linux-x86_64.mcpb", path
    return path


@pytest.fixture(scope="module")
def unpacked(bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Where a desktop app would install it: a path with a space in it.
    where = tmp_path_factory.mktemp("Claude Extensions") / "mcp-wasm-host"
    done = mcpb("unpack", str(bundle), str(where))
    assert done.returncode == 0, f"mcpb unpack failed:\n{done.stdout}{done.stderr}"
    return where


@pytest.fixture(scope="module")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("My Plugins")
    subprocess.run([str(REPO / "scripts" / "build-python-plugin.sh"), str(out), "textstats"],
                   check=True, stdout=subprocess.DEVNULL, timeout=600)
    assert (out / "textstats.wasm").is_file()
    return out


def launch(unpacked: Path, user_config: dict[str, Any]) -> dict[str, Any] | None:
    """The command, args and env a desktop app runs for these settings."""
    done = subprocess.run([node(), str(LAUNCH), str(MCPB_PACKAGE), str(unpacked), json.dumps(user_config)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"mcpb_launch.mjs failed:\n{done.stdout}{done.stderr}"
    return json.loads(done.stdout)


def server_env(config: dict[str, Any], tmp_path: Path) -> dict[str, str]:
    # The app's environment, plus a compile cache of this test's own.
    return {**config.get("env", {}), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_the_bundle_holds_the_manifest_the_static_binary_and_the_license(bundle: Path, unpacked: Path):
    with zipfile.ZipFile(bundle) as z:
        names = set(z.namelist())
    assert {"manifest.json", "server/mcp-wasm-host", "LICENSE"} <= names, names
    assert json.loads((unpacked / "manifest.json").read_text()) == json.loads(SOURCE_MANIFEST.read_text())
    binary = unpacked / "server" / "mcp-wasm-host"
    assert binary.stat().st_mode & stat.S_IXUSR, "mcpb unpack left the server binary without its execute bit"
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.split()[-1] == json.loads(SOURCE_MANIFEST.read_text())["version"]


def test_the_manifest_declares_what_the_bundle_really_is():
    m = json.loads(SOURCE_MANIFEST.read_text())
    assert m["manifest_version"] == "0.3"
    server = m["server"]
    assert server["type"] == "binary" and server["entry_point"] == "server/mcp-wasm-host"
    config = server["mcp_config"]
    assert config["command"] == "${__dirname}/" + server["entry_point"]
    # One static Linux x86_64 binary: Linux only, and no runtime to ask for.
    platforms = m["compatibility"]["platforms"]
    assert platforms == ["linux"] and "runtimes" not in m["compatibility"]
    assert set(config.get("platform_overrides", {})) <= set(platforms)
    # Every setting is used, and used where an unset optional one becomes
    # an empty string (an env value) rather than a literal `${...}` argument.
    settings = m["user_config"]
    assert settings["plugins_directory"]["type"] == "directory" and settings["plugins_directory"]["required"]
    assert settings["policy_file"]["type"] == "file" and not settings["policy_file"]["required"]
    assert config["args"] == ["serve", "--plugins", "${user_config.plugins_directory}"]
    assert config["env"] == {"MCP_WASM_HOST_CONFIG": "${user_config.policy_file}"}
    assert settings["policy_file"]["default"] == ""


BROKEN = [
    ("no manifest_version", lambda m: m.pop("manifest_version")),
    ("an unknown server type", lambda m: m["server"].update(type="exe")),
    ("an unknown platform", lambda m: m["compatibility"].update(platforms=["linux", "beos"])),
    ("an unknown setting type", lambda m: m["user_config"]["plugins_directory"].update(type="folder")),
    ("an unknown field", lambda m: m.update(plugins="plugins")),
]


@pytest.mark.parametrize("what, breaks", BROKEN, ids=[b[0] for b in BROKEN])
def test_mcpb_validate_refuses_a_broken_manifest(tmp_path: Path, what, breaks):
    manifest = json.loads(SOURCE_MANIFEST.read_text())
    breaks(manifest)
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    done = mcpb("validate", str(tmp_path / "manifest.json"))
    assert done.returncode != 0, f"mcpb validate accepted a manifest with {what}:\n{done.stdout}{done.stderr}"


def test_a_required_setting_left_empty_starts_no_server(unpacked: Path):
    assert launch(unpacked, {}) is None
    assert launch(unpacked, {"plugins_directory": ""}) is None


def test_the_sdk_client_lists_and_calls_a_tool_served_from_the_bundle(unpacked: Path, plugins: Path, tmp_path: Path):
    config = launch(unpacked, {"plugins_directory": str(plugins)})
    assert config is not None
    assert config["command"] == str(unpacked / "server" / "mcp-wasm-host")
    assert config["args"] == ["serve", "--plugins", str(plugins)]
    # No policy file chosen: an empty value, which the server reads as none.
    assert config["env"]["MCP_WASM_HOST_CONFIG"] == ""
    params = StdioServerParameters(command=config["command"], args=config["args"],
                                   env=server_env(config, tmp_path), cwd=str(tmp_path))

    async def run() -> tuple[list[str], Any]:
        with anyio.fail_after(180):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = [t.name for t in (await session.list_tools()).tools]
                    result = await session.call_tool("word_count", {"text": "one two three\nfour"})
                    return tools, result

    tools, result = anyio.run(run)
    assert "word_count" in tools, tools
    assert not result.is_error, result
    assert result.structured_content["words"] == 4 and result.structured_content["lines"] == 2, result


def test_a_chosen_policy_file_reaches_the_server(unpacked: Path, plugins: Path, tmp_path: Path):
    policy = tmp_path / "my policy.toml"
    policy.write_text("[defaults]\nno_such_key = 1\n")
    config = launch(unpacked, {"plugins_directory": str(plugins), "policy_file": str(policy)})
    assert config is not None and config["env"]["MCP_WASM_HOST_CONFIG"] == str(policy)
    done = run_until_exit(config, tmp_path)
    assert done.returncode != 0 and str(policy) in done.stderr and "no_such_key" in done.stderr, done.stderr


def run_until_exit(config: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_WASM_HOST_PLUGINS", "MCP_WASM_HOST_CONFIG")}
    env.update(server_env(config, tmp_path))
    done = subprocess.run([config["command"], *config["args"]], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == "", f"stdout carries only protocol messages: {done.stdout!r}"
    return done


# Every way the chosen plugins folder can fail to be a folder.
MISSING = [
    ("deleted", lambda base: base / "Plugins", "does not exist"),
    ("parent deleted", lambda base: base / "gone" / "Plugins", "does not exist"),
    ("a file", lambda base: _file(base / "plugins.wasm"), "is not a directory"),
    ("a dangling link", lambda base: _link(base / "Plugins", base / "moved"), "does not exist"),
]


def _file(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def _link(path: Path, target: Path) -> Path:
    path.symlink_to(target)
    return path


@pytest.mark.parametrize("what, make, says", MISSING, ids=[m[0] for m in MISSING])
def test_a_plugins_folder_that_is_not_there_says_which_and_what_to_do(unpacked: Path, tmp_path: Path,
                                                                      what, make, says):
    folder = make(tmp_path)
    config = launch(unpacked, {"plugins_directory": str(folder)})
    assert config is not None
    done = run_until_exit(config, tmp_path)
    assert done.returncode != 0
    assert f"the plugins directory {folder} {says}" in done.stderr, done.stderr
    assert '"Plugins folder" setting' in done.stderr, done.stderr
    assert "panicked" not in done.stderr, done.stderr
