"""Tests of the Python tool plugin plugins/python/textstats.

* The plugin's Python code and the guest SDK (sdk-python), run natively
  against componentize-py's stub bindings (fast, no WebAssembly).
* The built component, run in wasmtime-py with WASI 0.2 and a Python
  implementation of the `host` imports: proves the component instantiates and
  follows the contract without the Rust host.
* If MCP_WASM_HOST_BIN names the host binary: tests/python/sdk_client.py
  against `MCP_WASM_HOST_BIN serve --plugins DIR` with the component.

Run: `scripts/setup-python.sh && .venv/bin/python -m pytest tests/python`.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from host_session import with_session

REPO = Path(__file__).resolve().parents[2]
PLUGIN_DIR = REPO / "plugins" / "python" / "textstats"
COMPONENTIZE_PY = Path(sys.executable).parent / "componentize-py"
TOOLS_INTERFACE = "mcp-wasm-host:plugin/tools@0.2.1"
RESOURCES_INTERFACE = "mcp-wasm-host:plugin/resources@0.2.1"
PROMPTS_INTERFACE = "mcp-wasm-host:plugin/prompts@0.2.1"
HOST_INTERFACE = "mcp-wasm-host:plugin/host@0.2.1"
CLIENT_INTERFACE = "mcp-wasm-host:plugin/client@0.2.1"

CASES = [
    # text, words, lines, chars
    ("", 0, 0, 0),
    ("hello", 1, 1, 5),
    ("hello wide world\nsecond line\n", 5, 2, 29),
    ("  spaced\t\tout  ", 2, 1, 15),
    ("a\n\nb", 2, 3, 4),
    ("héllo  wörld 🎉", 3, 1, 14),
]


# --- the Python code, natively, against stub bindings ------------------------

@pytest.fixture(scope="module")
def app(tmp_path_factory):
    stubs = tmp_path_factory.mktemp("stubs")
    subprocess.run(
        [str(COMPONENTIZE_PY), "-q", "-d", str(REPO / "wit"), "-w", "plugin-full", "bindings", str(stubs)],
        check=True,
    )
    paths = [str(stubs), str(PLUGIN_DIR), str(REPO / "sdk-python")]
    sys.path[:0] = paths
    try:
        app = importlib.import_module("app")
        # What the tests below use from the bindings, beside the plugin.
        app.host = importlib.import_module("wit_world.imports.host")
        app.LogLevel = importlib.import_module("wit_world.imports.types").LogLevel
        app.Err = importlib.import_module("componentize_py_types").Err
        # The module the build componentizes: `app`'s exports, or the SDK's.
        app.component = importlib.import_module("mcp_wasm_sdk.component")
        yield app
    finally:
        for p in paths:
            sys.path.remove(p)
        for name in list(sys.modules):
            if name == "app" or name.split(".")[0] in ("wit_world", "componentize_py_types", "mcp_wasm_sdk"):
                del sys.modules[name]


@pytest.fixture
def logs(app, monkeypatch):
    records = []
    monkeypatch.setattr(app.host, "log", lambda level, message: records.append((level, message)))
    return records


def test_definitions(app):
    (tool,) = app.Tools().list_tools()
    assert tool.name == "word_count"
    assert tool.description.strip()
    for schema in (json.loads(tool.input_schema), json.loads(tool.output_schema)):
        assert schema["type"] == "object"
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(schema)
    a = tool.annotations
    assert (a.read_only_hint, a.idempotent_hint, a.open_world_hint) == (True, True, False)
    (icon,) = tool.icons
    assert (icon.src, icon.mime_type, icon.sizes, icon.theme) == (
        "https://mcp-wasm-host.example/icons/count.png", "image/png", ["48x48"], None)
    assert tool.task_support == importlib.import_module("wit_world.imports.types").TaskSupport.OPTIONAL


@pytest.mark.parametrize("text,words,lines,chars", CASES)
def test_word_count(app, logs, text, words, lines, chars):
    (tool,) = app.Tools().list_tools()
    jsonschema.validate({"text": text}, json.loads(tool.input_schema))
    result = app.Tools().call_tool("word_count", json.dumps({"text": text}))
    assert not result.is_error
    structured = json.loads(result.structured_content)
    assert structured == {"words": words, "lines": lines, "chars": chars}
    jsonschema.validate(structured, json.loads(tool.output_schema))
    (block,) = result.content
    assert block.value.text == f"words: {words}, lines: {lines}, chars: {chars}"
    assert len(logs) == 1 and logs[0][0] == app.LogLevel.INFO
    if text.strip():
        assert text.strip() not in logs[0][1]  # sizes only, never the text


def test_errors(app, logs):
    tools = app.Tools()
    with pytest.raises(app.Err) as e:
        tools.call_tool("nope", "{}")
    assert type(e.value.value).__name__ == "ToolError_UnknownTool"
    for arguments in ("not json", "[1]", '{"text": 3}'):
        with pytest.raises(app.Err) as e:
            tools.call_tool("word_count", arguments)
        assert type(e.value.value).__name__ == "ToolError_InvalidArguments"
    assert logs == []


def test_the_metrics_resource_is_listed_and_read(app):
    resources = app.component.Resources()
    (r,) = resources.list_resources()
    assert (r.uri, r.name, r.mime_type, r.view) == ("textstats://metrics", "metrics", "text/markdown", None)
    assert resources.list_resource_templates() == [] and resources.list_tool_views() == []
    (part,) = resources.read_resource("textstats://metrics")
    assert part.mime_type == "text/markdown"
    assert "Unicode code points" in part.body.value
    with pytest.raises(app.Err) as e:
        resources.read_resource("textstats://nothing")
    assert type(e.value.value).__name__ == "ServeError_NotFound"


def test_the_summarize_prompt_fills_in_the_counts_and_completes_its_style(app):
    prompts = app.component.Prompts()
    (p,) = prompts.list_prompts()
    assert p.name == "summarize_text_stats"
    assert [(a.name, a.required) for a in p.arguments] == [("text", True), ("style", False)]
    result = prompts.get_prompt("summarize_text_stats", [("text", "one two\nthree"), ("style", "detailed")])
    metrics, ask = result.messages
    assert metrics.content.value.uri == "textstats://metrics"
    assert "In a short paragraph" in ask.content.value.text
    assert "words: 3, lines: 2, chars: 13" in ask.content.value.text
    with pytest.raises(app.Err) as e:
        prompts.get_prompt("summarize_text_stats", [("text", "x"), ("style", "loud")])
    assert type(e.value.value).__name__ == "ServeError_InvalidArguments"

    c = importlib.import_module("wit_world.exports.completions")
    got = app.component.Completions().complete(
        c.CompletionRequest(c.CompletionTarget_Prompt("summarize_text_stats"), "style", "d", []))
    assert (got.values, got.has_more) == (["detailed"], False)


# --- the component, in wasmtime-py -------------------------------------------

@pytest.fixture(scope="module")
def component_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("plugins")
    subprocess.run([str(REPO / "scripts" / "build-python-plugin.sh"), str(out), "textstats"],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def test_component_header(component_dir):
    with open(component_dir / "textstats.wasm", "rb") as f:
        assert f.read(8) == b"\0asm\x0d\x00\x01\x00"


@pytest.fixture(scope="module")
def runtime(component_dir):
    import wasmtime
    from wasmtime.component import Component, Linker

    engine = wasmtime.Engine()
    component = Component.from_file(engine, str(component_dir / "textstats.wasm"))
    linker = Linker(engine)
    linker.add_wasip2()
    logs = []
    with linker.root() as root, root.add_instance(HOST_INTERFACE) as host:
        host.add_func("log", lambda store, level, message: logs.append((level, message)))
        host.add_func("report-progress", lambda store, progress, total, message: None)
    # The plugin never asks the client here; componentize-py imports every
    # function of the interface, so each must be defined.
    with linker.root() as root, root.add_instance(CLIENT_INTERFACE) as client:
        for name in ("create-message", "elicit", "list-roots", "request-inputs", "require"):
            client.add_func(name, lambda store, *args: pytest.fail("unexpected request to the client"))

    def call(function, *args, interface=TOOLS_INTERFACE):
        """Calls a function of an export (`tools` unless `interface` names
        another) in a fresh instance, as the host does."""
        store = wasmtime.Store(engine)
        store.set_wasi(wasmtime.WasiConfig())
        instance = linker.instantiate(store, component)
        exported = instance.get_export_index(store, interface)
        func = instance.get_func(store, instance.get_export_index(store, function, exported))
        result = func(store, *args)
        func.post_return(store)
        return result

    return call, logs


def test_component_lists_tools(runtime):
    call, _ = runtime
    (tool,) = call("list-tools")
    fields = tool.__dict__
    assert fields["name"] == "word_count"
    assert json.loads(fields["input-schema"])["type"] == "object"
    assert json.loads(fields["output-schema"])["type"] == "object"
    annotations = fields["annotations"].__dict__
    assert annotations["read-only-hint"] is True
    assert annotations["idempotent-hint"] is True
    assert annotations["open-world-hint"] is False
    (icon,) = fields["icons"]
    assert icon.__dict__["src"] == "https://mcp-wasm-host.example/icons/count.png"
    assert fields["task-support"] == "optional"


def test_component_calls_tool(runtime):
    call, logs = runtime
    logs.clear()
    for text, words, lines, chars in CASES:
        result = call("call-tool", "word_count", json.dumps({"text": text})).__dict__
        assert result["is-error"] is False
        assert json.loads(result["structured-content"]) == {"words": words, "lines": lines, "chars": chars}
        (block,) = result["content"]
        assert block.tag == "text"
        assert block.payload.text == f"words: {words}, lines: {lines}, chars: {chars}"
    assert [level for level, _ in logs] == ["info"] * len(CASES)


def test_component_serves_the_metrics_resource_and_the_prompt(runtime):
    call, _ = runtime
    (resource,) = call("list-resources", interface=RESOURCES_INTERFACE)
    assert resource.__dict__["uri"] == "textstats://metrics"
    (part,) = call("read-resource", "textstats://metrics", interface=RESOURCES_INTERFACE)
    assert "Unicode code points" in part.__dict__["body"]  # text(string): wasmtime-py gives the str
    (prompt,) = call("list-prompts", interface=PROMPTS_INTERFACE)
    assert prompt.__dict__["name"] == "summarize_text_stats"
    result = call("get-prompt", "summarize_text_stats", [("text", "a b")], interface=PROMPTS_INTERFACE)
    assert "words: 2, lines: 1, chars: 3" in result.__dict__["messages"][1].__dict__["content"].payload.text


def test_component_errors(runtime):
    call, _ = runtime
    error = call("call-tool", "nope", "{}")
    assert (error.tag, error.payload) == ("unknown-tool", "unknown tool: nope")
    error = call("call-tool", "word_count", '{"text": 3}')
    assert error.tag == "invalid-arguments"


# --- the host, through the official MCP Python SDK ---------------------------

def test_sdk_client_against_host(component_dir):
    # scripts/test.sh always sets this; a missing host is a failure, not a skip.
    assert os.environ.get("MCP_WASM_HOST_BIN"), "set MCP_WASM_HOST_BIN to the mcp-wasm-host binary (scripts/test.sh does)"
    out = subprocess.run(
        [sys.executable, str(REPO / "tests" / "python" / "sdk_client.py"),
         "--server", os.environ["MCP_WASM_HOST_BIN"], "--plugins", str(component_dir),
         "--page-size", "1", "--expect-tools", "word_count",
         "--call", "word_count", "--args", json.dumps({"text": "one two\nthree"}),
         "--expect-text", "words: 3, lines: 2, chars: 13"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["pages"] == 1 and summary["tools"] == 1
    assert summary["structured_content"] == {"words": 3, "lines": 2, "chars": 13}


def test_host_serves_the_metrics_resource_and_fills_in_the_prompt(component_dir):
    async def session_body(session):
        listed = (await session.list_resources()).resources
        read = (await session.read_resource("textstats://metrics")).contents
        prompts = (await session.list_prompts()).prompts
        got = await session.get_prompt("summarize_text_stats", {"text": "one two\nthree"})
        return listed, read, prompts, got

    config = component_dir / "empty-policy.toml"
    config.write_text("")
    listed, read, prompts, got = with_session(component_dir, config, session_body)
    assert [(str(r.uri), r.name, r.mime_type) for r in listed] == [("textstats://metrics", "metrics", "text/markdown")]
    (part,) = read
    assert str(part.uri) == "textstats://metrics" and "Unicode code points" in part.text
    (prompt,) = prompts
    assert prompt.name == "summarize_text_stats"
    assert [(a.name, a.required) for a in prompt.arguments] == [("text", True), ("style", False)]
    metrics, ask = got.messages
    assert metrics.role == "user" and str(metrics.content.resource.uri) == "textstats://metrics"
    assert ask.content.text.startswith("In one sentence")
    assert "words: 3, lines: 2, chars: 13" in ask.content.text and ask.content.text.endswith("one two\nthree")


def test_host_inspect_sees_the_task_support(component_dir):
    assert os.environ.get("MCP_WASM_HOST_BIN"), "set MCP_WASM_HOST_BIN to the mcp-wasm-host binary (scripts/test.sh does)"
    out = subprocess.run(
        [os.environ["MCP_WASM_HOST_BIN"], "inspect", "--json", str(component_dir / "textstats.wasm")],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["task_support"] == {"word_count": "optional"}
