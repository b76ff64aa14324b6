"""The Python SDK as a user gets it: its wheel (scripts/package-python-sdk.sh)
installed with pip into a fresh virtual environment outside this checkout,
a plugin written in a directory outside it, built with the installed
`mcp-wasm-sdk-build` command (componentize-py comes with the package), and
served by the real binary to the official MCP Python SDK client.

The fresh environment gets componentize-py, pinned by the package, from the
index (the only network use; pip's cache serves a rerun).

Run: `MCP_WASM_HOST_BIN=target/debug/mcp-wasm-host .venv/bin/python -m pytest tests/python/test_sdk_package.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema

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


def run(*args: str, cwd: Path) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args}: {done.stdout}{done.stderr}"
    return done.stdout


def test_an_installed_sdk_builds_a_plugin_outside_the_checkout(tmp_path: Path) -> None:
    assert not tmp_path.resolve().is_relative_to(REPO)
    wheel = Path(run(str(REPO / "scripts" / "package-python-sdk.sh"), str(tmp_path / "dist"), cwd=REPO).strip())
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

    async def body(session):
        tools = (await session.list_tools()).tools
        result = await session.call_tool("shout", {"text": "hi", "times": 2})
        return tools, result

    tools, result = with_session(plugins, config, body)
    assert [t.name for t in tools] == ["shout"]
    jsonschema.Draft202012Validator.check_schema(tools[0].input_schema)
    assert tools[0].input_schema["properties"]["times"]["description"] == "How many times to say it."
    assert not result.is_error and text_of(result) == "HI HI", result

    # A directory without the module `app` gets a clear error, not a trace.
    (tmp_path / "empty").mkdir()
    done = subprocess.run([str(venv / "bin" / "mcp-wasm-sdk-build"), "empty", "-o", "x.wasm"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "has no module `app`" in done.stderr, done.stderr
