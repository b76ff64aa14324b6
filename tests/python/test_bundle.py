"""The MCP Bundle (.mcpb) for Claude Desktop, as a user gets it.

scripts/build-bundle.sh stages packaging/mcpb/manifest.json with the
installed static binary (the `installed_host` fixture) and runs the official
CLI (@anthropic-ai/mcpb, pinned in packaging/mcpb): `mcpb validate`, then
`mcpb pack`. This is CI's bundle, Linux x86_64 only: its staged manifest
declares Linux alone, and its Linux launcher (packaging/mcpb/
linux-launcher.sh) picks the binary for the machine's CPU. The layout of
the full bundle (macOS, Windows, Linux; scripts/lib/mcpb_bundle.py) is
checked against what the official library resolves for each platform. The
bundle is then unpacked with `mcpb unpack`, and the server
is started the way a desktop app starts it: the command, args and env come
from the official library's getMcpConfigForManifest (scripts/lib/
mcpb-launch.mjs), with `${__dirname}` and the user's settings substituted. The
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

import copy
import importlib.util
import json
import os
import stat
import subprocess
import sys
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
LAUNCH = REPO / "scripts" / "lib" / "mcpb-launch.mjs"
CHECK_BUNDLE = REPO / "scripts" / "lib" / "check-bundle.py"
LAUNCHER = REPO / "packaging" / "mcpb" / "linux-launcher.sh"


def layout():
    """scripts/lib/mcpb_bundle.py, the layout build-bundle.sh stages."""
    spec = importlib.util.spec_from_file_location("mcpb_bundle", REPO / "scripts" / "lib" / "mcpb_bundle.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


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


def launch(unpacked: Path, user_config: dict[str, Any], platform: str | None = None) -> dict[str, Any] | None:
    """The command, args and env a desktop app runs for these settings (on
    `platform`, as process.platform says it, else on this system)."""
    done = subprocess.run([node(), str(LAUNCH), str(MCPB_PACKAGE), str(unpacked), json.dumps(user_config),
                           *([platform] if platform else [])],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"mcpb-launch.mjs failed:\n{done.stdout}{done.stderr}"
    return json.loads(done.stdout)


def ci_manifest() -> dict[str, Any]:
    """The manifest of a bundle of the Linux x86_64 binary alone: the repo's,
    declaring Linux only and with no platform_overrides."""
    m = copy.deepcopy(json.loads(SOURCE_MANIFEST.read_text()))
    m["compatibility"]["platforms"] = ["linux"]
    del m["server"]["mcp_config"]["platform_overrides"]
    return m


def server_env(config: dict[str, Any], tmp_path: Path) -> dict[str, str]:
    # The app's environment, plus a compile cache of this test's own.
    return {**config.get("env", {}), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_the_bundle_holds_the_manifest_the_launcher_the_static_binary_and_the_license(bundle: Path, unpacked: Path):
    with zipfile.ZipFile(bundle) as z:
        names = {n for n in z.namelist() if not n.endswith("/")}
    assert names == {"manifest.json", "LICENSE", "server/mcp-wasm-host", "server/linux-x86_64/mcp-wasm-host"}, names
    # A copy of the repo's manifest that declares only what the bundle carries.
    assert json.loads((unpacked / "manifest.json").read_text()) == ci_manifest()
    launcher = unpacked / "server" / "mcp-wasm-host"
    assert launcher.read_bytes() == LAUNCHER.read_bytes()
    for path in (launcher, unpacked / "server" / "linux-x86_64" / "mcp-wasm-host"):
        assert path.stat().st_mode & stat.S_IXUSR, f"mcpb unpack left {path} without its execute bit"
    version = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.split()[-1] == json.loads(SOURCE_MANIFEST.read_text())["version"]


def test_the_manifest_declares_what_the_bundle_really_is():
    m = json.loads(SOURCE_MANIFEST.read_text())
    assert m["manifest_version"] == "0.3"
    server = m["server"]
    assert server["type"] == "binary" and server["entry_point"] == "server/mcp-wasm-host"
    config = server["mcp_config"]
    assert config["command"] == "${__dirname}/" + server["entry_point"]
    # Native binaries for the three systems: no runtime to ask for. macOS and
    # Windows override the command only (their args and env are the base's);
    # Linux runs the base command, the launcher.
    platforms = m["compatibility"]["platforms"]
    assert platforms == ["darwin", "win32", "linux"] and "runtimes" not in m["compatibility"]
    overrides = config["platform_overrides"]
    assert set(overrides) == {"darwin", "win32"}, overrides
    assert all(set(o) == {"command"} for o in overrides.values()), overrides
    assert overrides["win32"]["command"].endswith(".exe")
    # Every setting is used, and used where an unset optional one becomes
    # an empty string (an env value) rather than a literal `${...}` argument.
    settings = m["user_config"]
    assert settings["plugins_directory"]["type"] == "directory" and settings["plugins_directory"]["required"]
    assert settings["policy_file"]["type"] == "file" and not settings["policy_file"]["required"]
    assert config["args"] == ["serve", "--plugins", "${user_config.plugins_directory}"]
    assert config["env"] == {"MCP_WASM_HOST_CONFIG": "${user_config.policy_file}"}
    assert settings["policy_file"]["default"] == ""


ALL_TRIPLES = ["x86_64-unknown-linux-musl", "aarch64-unknown-linux-musl", "x86_64-pc-windows-gnu",
               "aarch64-apple-darwin", "x86_64-apple-darwin"]


def test_each_platform_s_command_is_a_file_build_bundle_writes(tmp_path: Path):
    """The official library, on each platform, resolves the repo manifest's
    command to the file build-bundle.sh writes for that platform."""
    lay = layout()
    manifest = json.loads(SOURCE_MANIFEST.read_text())
    files = lay.placements(manifest, ALL_TRIPLES)
    assert files == {
        "server/mcp-wasm-host": [],
        "server/linux-x86_64/mcp-wasm-host": ["x86_64-unknown-linux-musl"],
        "server/linux-aarch64/mcp-wasm-host": ["aarch64-unknown-linux-musl"],
        "server/win32/mcp-wasm-host.exe": ["x86_64-pc-windows-gnu"],
        "server/darwin/mcp-wasm-host": ["aarch64-apple-darwin", "x86_64-apple-darwin"],
    }, files
    (tmp_path / "manifest.json").write_text(json.dumps(lay.trimmed(manifest, ALL_TRIPLES)))
    made_of = {"linux": [], "win32": ["x86_64-pc-windows-gnu"], "darwin": ["aarch64-apple-darwin", "x86_64-apple-darwin"]}
    for platform, want in made_of.items():
        config = launch(tmp_path, {"plugins_directory": "/plugins"}, platform)
        assert config is not None and config["args"] == ["serve", "--plugins", "/plugins"], (platform, config)
        assert config["env"] == {"MCP_WASM_HOST_CONFIG": ""}, (platform, config)
        rel = Path(config["command"]).relative_to(tmp_path).as_posix()
        assert files.get(rel) == want, (platform, rel, files)
    # The paths are read from the manifest, not written twice: move one, and
    # the layout follows.
    moved = copy.deepcopy(manifest)
    moved["server"]["mcp_config"]["platform_overrides"]["darwin"]["command"] = "${__dirname}/bin/mac/mcp-wasm-host"
    assert lay.placements(moved, ALL_TRIPLES)["bin/mac/mcp-wasm-host"] == made_of["darwin"]
    moved["server"]["mcp_config"]["command"] = "${__dirname}/bin/mcp-wasm-host"
    assert "bin/linux-aarch64/mcp-wasm-host" in lay.placements(moved, ALL_TRIPLES)


# What a bundle of some binaries declares, and its file's name.
TRIMMED = [
    (["x86_64-unknown-linux-musl"], ["linux"], set(), "-linux-x86_64"),
    (["aarch64-unknown-linux-musl"], ["linux"], set(), "-linux-aarch64"),
    (["x86_64-pc-windows-gnu", "x86_64-unknown-linux-musl"], ["win32", "linux"], {"win32"},
     "-linux-x86_64-windows-x86_64"),
    (["aarch64-apple-darwin"], ["darwin"], {"darwin"}, "-macos-aarch64"),
    (ALL_TRIPLES, ["darwin", "win32", "linux"], {"darwin", "win32"}, ""),
]


@pytest.mark.parametrize("triples, platforms, overrides, suffix", TRIMMED, ids=[t[3] or "all" for t in TRIMMED])
def test_a_bundle_declares_only_the_platforms_whose_binaries_it_carries(tmp_path: Path, triples, platforms,
                                                                       overrides, suffix):
    lay = layout()
    manifest = lay.trimmed(json.loads(SOURCE_MANIFEST.read_text()), triples)
    assert manifest["compatibility"]["platforms"] == platforms
    assert set(manifest["server"]["mcp_config"].get("platform_overrides", {})) == overrides
    version = manifest["version"]
    assert lay.bundle_name(version, triples) == f"mcp-wasm-host-{version}{suffix}.mcpb"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    done = mcpb("validate", str(tmp_path / "manifest.json"))
    assert done.returncode == 0, f"mcpb validate refused the manifest of {triples}:\n{done.stdout}{done.stderr}"


# Binaries build-bundle.sh refuses, before it packs anything.
REFUSED = [
    ("the wrong CPU", ["--aarch64-unknown-linux-musl", "{host}"], "is an ELF for machine 62, not aarch64 (183)"),
    ("an unknown triple", ["--x86_64-unknown-linux-gnu", "{host}"], "no binary is called 'x86_64-unknown-linux-gnu'"),
    ("one given twice", ["--x86_64-unknown-linux-musl", "{host}", "--x86_64-unknown-linux-musl", "{host}"],
     "the x86_64-unknown-linux-musl binary is given twice"),
    ("a missing file", ["{tmp}/mcp-wasm-host"], "is not an executable file"),
]


@pytest.mark.parametrize("what, args, says", REFUSED, ids=[r[0] for r in REFUSED])
def test_build_bundle_refuses_a_binary_that_is_not_what_it_is_given_as(installed_host: Path, tmp_path: Path,
                                                                      what, args, says):
    args = [a.format(host=installed_host, tmp=tmp_path) for a in args]
    done = subprocess.run([str(REPO / "scripts" / "build-bundle.sh"), str(tmp_path / "out"), *args],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert says in done.stderr and done.stdout == "", done.stderr
    assert not (tmp_path / "out").exists()


def test_the_ci_bundle_resolves_for_linux_only(unpacked: Path):
    launcher = str(unpacked / "server" / "mcp-wasm-host")
    assert launch(unpacked, {"plugins_directory": "/plugins"}, "linux")["command"] == launcher
    # No override: on macOS or Windows the library would pick the Linux
    # launcher, so the bundle must not declare them (and carries nothing of theirs).
    for platform in ("darwin", "win32"):
        assert launch(unpacked, {"plugins_directory": "/plugins"}, platform)["command"] == launcher
    assert json.loads((unpacked / "manifest.json").read_text())["compatibility"]["platforms"] == ["linux"]
    assert sorted(p.name for p in (unpacked / "server").iterdir()) == ["linux-x86_64", "mcp-wasm-host"]


def check_bundle(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["python3", str(CHECK_BUNDLE), "--node", node(), str(path)],
                          capture_output=True, text=True, timeout=300)


def test_check_bundle_passes_the_ci_bundle(unpacked: Path):
    done = check_bundle(unpacked)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "check-bundle: linux: server/mcp-wasm-host: launcher for x86_64: static ELF for x86_64"], done.stderr
    assert json.loads(done.stdout) == {"linux": str(unpacked / "server" / "mcp-wasm-host")}


def test_check_bundle_refuses_a_platform_without_its_binary(unpacked: Path, tmp_path: Path):
    # The CI bundle's files, with a manifest that also declares macOS.
    manifest = json.loads((unpacked / "manifest.json").read_text())
    manifest["compatibility"]["platforms"] = ["darwin", "linux"]
    manifest["server"]["mcp_config"]["platform_overrides"] = {"darwin": {"command": "${__dirname}/server/darwin/mcp-wasm-host"}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "server").symlink_to(unpacked / "server")
    done = check_bundle(tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == "check-bundle: darwin: the command server/darwin/mcp-wasm-host is not in the bundle", done.stderr
    assert done.stdout == ""


def test_check_bundle_refuses_a_linux_binary_that_is_not_executable(unpacked: Path, tmp_path: Path):
    (tmp_path / "manifest.json").write_bytes((unpacked / "manifest.json").read_bytes())
    (tmp_path / "server" / "linux-x86_64").mkdir(parents=True)
    (tmp_path / "server" / "mcp-wasm-host").write_bytes(LAUNCHER.read_bytes())
    (tmp_path / "server" / "mcp-wasm-host").chmod(0o755)
    (tmp_path / "server" / "linux-x86_64" / "mcp-wasm-host").write_bytes(b"\x7fELF")
    done = check_bundle(tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == "check-bundle: linux: server/linux-x86_64/mcp-wasm-host is not executable", done.stderr


def with_uname(tmp_path: Path, machine: str) -> dict[str, str]:
    """An environment whose `uname` says this machine is a `machine`."""
    fake = tmp_path / f"uname-{machine}"
    fake.mkdir()
    (fake / "uname").write_text(f"#!/bin/sh\necho {machine}\n")
    (fake / "uname").chmod(0o755)
    return {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}


@pytest.mark.parametrize("machine", ["riscv64", "aarch64", "arm64", ""])
def test_the_linux_launcher_says_which_cpus_it_carries_when_it_has_none_for_this_one(unpacked: Path, tmp_path: Path,
                                                                                     machine):
    done = subprocess.run([str(unpacked / "server" / "mcp-wasm-host"), "serve", "--plugins", str(tmp_path)],
                          env=with_uname(tmp_path, machine), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout == "", "stdout is the MCP channel"
    assert done.stderr.splitlines() == [
        f"mcp-wasm-host: this bundle has no Linux binary for this machine's CPU (uname -m: {machine or 'unknown'}); "
        "it carries: x86_64. Build the server from source for this CPU (see the project's README)."], done.stderr


@pytest.mark.parametrize("machine", ["x86_64", "amd64"])
def test_the_linux_launcher_execs_the_binary_for_this_cpu(unpacked: Path, tmp_path: Path, machine):
    binary = unpacked / "server" / "linux-x86_64" / "mcp-wasm-host"
    env = {**with_uname(tmp_path, machine), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("MCP_WASM_HOST_CONFIG", None)
    server = subprocess.Popen([str(unpacked / "server" / "mcp-wasm-host"), "serve", "--plugins", str(tmp_path)],
                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        # The server's first log line: it runs. The launcher's shell is gone
        # (exec): the process the client started is the server itself, so
        # the client's signals and stdio reach it directly.
        first = server.stderr.readline()
        assert "mcp_wasm_host" in first, first
        assert Path(f"/proc/{server.pid}/exe").resolve() == binary.resolve()
    finally:
        try:
            rest = server.communicate(timeout=60)  # closes stdin: the client is gone
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert server.returncode == 0, rest[1]
    assert rest[0] == "", "a server with no client writes nothing on stdout"


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
