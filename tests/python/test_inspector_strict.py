"""The Python example plugins (plugins/python/*), built from source with
scripts/build-python-plugin.sh, have schemas that the MCP Inspector's CLI
(`@modelcontextprotocol/inspector`, pinned in tests/ts/package.json) finds
portable: `--cli mcp-wasm-host serve … --method tools/list --strict` reports
0 errors and 0 warnings, for each plugin alone and for the examples served
together. The SDK (sdk-python/mcp_wasm_sdk/schema.py) writes `anyOf` with a
null branch for `Optional` hints and an `anyOf` over the six JSON types for
`Any`, never a `type` array or a schema without a validation keyword.

The Rust, Go, C and JavaScript example plugins get the same check in
host/tests/all/inspector_strict.rs, which also shows, on a test plugin spelled
the old way, that the check finds what it should.

Needs MCP_WASM_HOST_BIN (the host binary) and MCP_WASM_HOST_NODE (Node 22,
with the Inspector installed in tests/ts/node_modules by
scripts/setup-node.sh); scripts/test.sh sets both.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import find_toolchain, missing
from host_session import REPO, host_bin

LAUNCHER = REPO / "tests/ts/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
PLUGINS = sorted(p.name for p in (REPO / "plugins" / "python").iterdir() if (p / "app.py").is_file())
# The plugins served together: the examples, not the store API's test plugin
# (pystore). Each Python component is about 40 MB to compile, and the
# Inspector gives tools/list 60 s: two took 48.6 s on a loaded 2-core
# machine (load 10), a third took it past the limit.
TOGETHER = ["csv_analyze", "textstats"]


def node() -> str:
    """Node 22, with the MCP Inspector that scripts/setup-node.sh installs beside it."""
    path = find_toolchain("MCP_WASM_HOST_NODE", "setup-node.sh")
    if not LAUNCHER.is_file():
        missing("the MCP Inspector is not installed in tests/ts/node_modules: run scripts/setup-node.sh (scripts/test.sh does)")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("plugins")
    subprocess.run([str(REPO / "scripts" / "build-python-plugin.sh"), str(out), *PLUGINS],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def strict_tools_list(plugins: Path, cache: Path) -> tuple[list[str], list[dict], str]:
    """The tools listed, the schema findings and the Inspector's output, after
    checking that it exited 0 (`--strict` exits 6 on an error finding)."""
    proc = subprocess.run(
        [node(), str(LAUNCHER), "--cli", host_bin(),
         "serve", "--no-watch", "--log", "warn", "--plugins", str(plugins), "--cache-dir", str(cache),
         "--method", "tools/list", "--strict", "--format", "json"],
        cwd=plugins, capture_output=True, text=True, timeout=300,
    )
    output = f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert proc.returncode == 0, f"the Inspector failed ({proc.returncode}):\n{output}"
    envelope = json.loads(proc.stdout)
    tools = [t["name"] for t in envelope["result"]["tools"]]
    assert tools, f"no tools listed:\n{output}"
    # `schemaFindings` is there only when something was found.
    findings = [
        {"tool": entry["toolName"], "severity": f["severity"], "rule": f["rule"],
         "where": f"{f['schema']}.{f['path']}"}
        for entry in envelope.get("schemaFindings", [])
        for f in entry["findings"]
    ]
    return tools, findings, output


def test_there_are_python_example_plugins():
    assert PLUGINS == ["csv_analyze", "pystore", "textstats"]


@pytest.mark.parametrize("name", PLUGINS)
def test_each_python_example_plugin_has_schemas_the_inspector_finds_portable(built, tmp_path, name):
    alone = tmp_path / "plugins"
    alone.mkdir()
    shutil.copy(built / f"{name}.wasm", alone)
    tools, findings, output = strict_tools_list(alone, tmp_path / "cache")
    assert findings == [], output
    assert tools, output


def test_the_python_example_plugins_served_together_are_portable(built, tmp_path):
    together = tmp_path / "plugins"
    together.mkdir()
    for name in TOGETHER:
        shutil.copy(built / f"{name}.wasm", together)
    tools, findings, output = strict_tools_list(together, tmp_path / "cache")
    assert findings == [], output
    assert sorted(tools) == sorted(
        ["csv_describe", "csv_aggregate", "csv_query", "word_count"]
    ), output
