"""The SDKs as a user gets them, outside this checkout: each packed the way
its language publishes (scripts/package-sdk.sh), installed by its
package manager into a project written in a fresh directory, the plugin
built with the installed build command, and served by the real binary to
the official MCP Python SDK client.

- Python: the wheel, pip-installed into a fresh virtual environment
  (componentize-py, pinned by the package, comes from the index);
- JavaScript/TypeScript: the `npm pack` tarball, npm-installed into a fresh
  project (componentize-js and esbuild, pinned by the package, come from
  the registry; npm's cache serves a rerun);
- Rust: the `cargo package` crates (the SDK and its `#[tool]` macros), unpacked
  as a user's vendored copies and depended on by version
  (`mcp-wasm-sdk = "0.1.0"`) through `[patch.crates-io]`, the project built for wasm32-wasip2 (its other
  dependencies from crates.io; their builds are kept in the workspace's
  target directory, so a rerun builds only the project).

Run: `MCP_WASM_HOST_BIN=target/debug/mcp-wasm-host .venv/bin/python -m pytest tests/python/test_sdk_package.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from host_session import text_of, with_session

REPO = Path(__file__).resolve().parents[2]

APP = '''
from mcp_wasm_sdk import Tools, tool


@tool(read_only=True)
def shout(text: str, times: int = 1) -> str:
    """Upper-cases a text.

    Args:
        text: The text to shout.
        times: How many times to say it.
    """
    return " ".join([text.upper()] * times)
'''


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout


def test_an_installed_sdk_builds_a_plugin_outside_the_checkout(tmp_path: Path) -> None:
    assert not tmp_path.resolve().is_relative_to(REPO)
    wheel = Path(run(str(REPO / "scripts" / "package-sdk.sh"), "python", str(tmp_path / "dist"), cwd=REPO).strip())
    assert wheel.name == "mcp_wasm_sdk-0.1.0-py3-none-any.whl", wheel

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", str(venv), cwd=tmp_path)
    python = venv / "bin" / "python"
    run(str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--find-links", str(wheel.parent), "mcp-wasm-sdk==0.1.0", cwd=tmp_path)
    # What was installed is the wheel, WIT included: nothing points back here.
    # (Located, not imported: the library runs inside components only.)
    find = "import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('mcp_wasm_sdk').origin).parent)"
    location = Path(run(str(python), "-c", find, cwd=tmp_path).strip())
    assert not location.is_relative_to(REPO), location
    assert (location.parent / "mcp_wasm_sdk_build" / "wit" / "plugin.wit").is_file()

    project = tmp_path / "hello"
    project.mkdir()
    (project / "app.py").write_text(APP)
    plugins = tmp_path / "plugins"
    run(str(venv / "bin" / "mcp-wasm-sdk-build"), "hello", "-o", str(plugins / "hello.wasm"), cwd=tmp_path)
    assert list(project.iterdir()) == [project / "app.py"], "the build writes nothing into the project"
    config = tmp_path / "mcp-wasm-host.toml"
    config.write_text("")

    serve_and_shout(plugins, config)

    # A directory without the module `app` gets a clear error, not a trace.
    (tmp_path / "empty").mkdir()
    done = subprocess.run([str(venv / "bin" / "mcp-wasm-sdk-build"), "empty", "-o", "x.wasm"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "has no module `app`" in done.stderr, done.stderr


TS_APP = """import { defineTool, s } from "mcp-wasm-sdk";

defineTool(
  {
    name: "shout",
    description: "Upper-cases a text.",
    inputSchema: s.object({
      text: s.string({ description: "The text to shout." }),
      times: s.integer({ minimum: 1 }).optional().describe("How many times to say it."),
    }),
  },
  ({ text, times = 1 }) => Array(times).fill(text.toUpperCase()).join(" "),
);
"""


def serve_and_shout(plugins: Path, config: Path) -> None:
    async def body(session):
        tools = (await session.list_tools()).tools
        result = await session.call_tool("shout", {"text": "hi", "times": 2})
        return tools, result

    tools, result = with_session(plugins, config, body)
    assert [t.name for t in tools] == ["shout"]
    assert tools[0].input_schema["properties"]["times"]["description"] == "How many times to say it."
    assert not result.is_error and text_of(result) == "HI HI", result


def test_an_installed_js_sdk_builds_a_plugin_outside_the_checkout(tmp_path: Path) -> None:
    assert not tmp_path.resolve().is_relative_to(REPO)
    node = run(str(REPO / "scripts" / "setup-node.sh"), cwd=REPO).strip()
    env = {**os.environ, "PATH": f"{Path(node).parent}{os.pathsep}{os.environ['PATH']}"}
    tarball = Path(run(str(REPO / "scripts" / "package-sdk.sh"), "js", str(tmp_path / "dist"), cwd=REPO).strip())
    assert tarball.name == "mcp-wasm-sdk-0.1.0.tgz", tarball

    project = tmp_path / "hello"
    (project / "src").mkdir(parents=True)
    (project / "src" / "index.ts").write_text(TS_APP)
    (project / "package.json").write_text(json.dumps({
        "name": "hello", "private": True, "type": "module",
        "devDependencies": {"mcp-wasm-sdk": f"file:{tarball}"},
    }))
    run("npm", "install", "--silent", "--no-audit", "--no-fund", cwd=project, env=env)
    installed = project / "node_modules" / "mcp-wasm-sdk"
    assert not installed.is_symlink(), "installed from the tarball, not linked to the checkout"
    assert (installed / "wit" / "plugin.wit").is_file()

    plugins = tmp_path / "plugins"
    plugins.mkdir()
    run("npx", "--no-install", "mcp-wasm-sdk", "build", "src/index.ts", "-o", str(plugins / "hello.wasm"),
        cwd=project, env={k: v for k, v in env.items() if k != "MCP_WASM_HOST_WIT"})
    config = tmp_path / "mcp-wasm-host.toml"
    config.write_text("")
    serve_and_shout(plugins, config)


RUST_APP = """use mcp_wasm_sdk::prelude::*;

/// Upper-cases a text.
#[tool]
fn shout(
    /// The text to shout.
    text: String,
    /// How many times to say it.
    times: Option<usize>,
) -> String {
    vec![text.to_uppercase(); times.unwrap_or(1)].join(" ")
}

export_tools!(shout);
"""


def test_a_packaged_rust_sdk_builds_a_plugin_outside_the_checkout(tmp_path: Path) -> None:
    import tarfile

    crates = [Path(line) for line in run(str(REPO / "scripts" / "package-sdk.sh"), "rust", str(tmp_path / "dist"),
                                         cwd=REPO).split()]
    assert [c.name for c in crates] == ["mcp-wasm-sdk-0.1.0.crate", "mcp-wasm-sdk-macros-0.1.0.crate"], crates
    vendor = tmp_path / "vendor"
    for crate in crates:
        with tarfile.open(crate) as t:
            t.extractall(vendor, filter="data")
    sdk = vendor / "mcp-wasm-sdk-0.1.0"
    macros = vendor / "mcp-wasm-sdk-macros-0.1.0"
    assert (sdk / "wit" / "plugin.wit").is_file() and not (sdk / "wit").is_symlink()

    project = tmp_path / "hello"
    (project / "src").mkdir(parents=True)
    (project / "src" / "lib.rs").write_text(RUST_APP)
    (project / "Cargo.toml").write_text(f"""[package]
name = "hello"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
crate-type = ["cdylib"]

[dependencies]
mcp-wasm-sdk = "0.1.0"
serde = {{ version = "1", features = ["derive"] }}

[patch.crates-io]
mcp-wasm-sdk = {{ path = "{sdk}" }}
mcp-wasm-sdk-macros = {{ path = "{macros}" }}

[workspace]
""")
    target = Path(json.loads(run("cargo", "metadata", "--format-version", "1", "--no-deps", cwd=REPO))["target_directory"])
    env = {**os.environ, "CARGO_TARGET_DIR": str(target / "sdk-package-rust")}
    run("cargo", "build", "--quiet", "--target", "wasm32-wasip2", cwd=project, env=env)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    built = target / "sdk-package-rust" / "wasm32-wasip2" / "debug" / "hello.wasm"
    (plugins / "hello.wasm").write_bytes(built.read_bytes())
    config = tmp_path / "mcp-wasm-host.toml"
    config.write_text("")
    serve_and_shout(plugins, config)
