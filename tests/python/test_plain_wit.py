"""Components from plain WIT, with no SDK, in Python (tests/python/plain_wit,
its own WIT package `demo:plainpy`, built with componentize-py), in
JavaScript (tests/python/plain_wit_js, `demo:plainjs`, built with
componentize-js), in C (tests/python/plain_wit_c/plainc, `demo:plainc`,
bindings from wit-bindgen's C generator, built with clang-19 and wasi-libc by
scripts/build-c-plugin.sh) and in Go (tests/python/plain_wit_go/plaingo,
`demo:plaingo`, bindings from wit-bindgen's Go generator, built for
GOOS=wasip1 by scripts/build-go-plugin.sh): each served by the real binary
as a generic component and called by the official MCP Python SDK client.

Covers a record (argument and result), a record nested in a record, an
`option` (left out, null and set), a `list`, an `option<list<..>>`, a 64-bit
result, and a `result` whose `err` comes back as `isError: true`, plus the
derived input schemas and the arguments the host refuses before the guest
runs. The C and Go components also export a `u64` function, called at the
edge of its range, and carry their WIT docs (the build adds the
`package-docs` section), so their descriptions are the WIT's.

A missing toolchain fails the test: componentize-py comes with the venv,
Node from scripts/setup-node.sh, clang-19 and Go from $MCP_WASM_HOST_C and
$MCP_WASM_HOST_GO or scripts/setup-c.sh and scripts/setup-go.sh.

Run: `scripts/setup-python.sh && MCP_WASM_HOST_BIN=target/debug/mcp-wasm-host
.venv/bin/python -m pytest tests/python/test_plain_wit.py`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from host_session import text_of, with_session

REPO = Path(__file__).resolve().parents[2]
COMPONENTIZE_PY = Path(sys.executable).parent / "componentize-py"
TOOLS = {"greet", "total", "parse-count", "words", "midpoint", "place"}


def staged(source: Path, stage: Path) -> Path:
    """A copy of source in stage, so a build writes nothing into the tree."""
    src = stage / "src"
    shutil.copytree(source, src, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return src


def build_python(source: Path, stage: Path, out: Path) -> Path:
    """Builds app.py against wit/ into out/plainpy.wasm with componentize-py.
    VIRTUAL_ENV names an empty directory so only the copy of the sources is
    on the guest's Python path (as scripts/build-python-plugin.sh does)."""
    src = staged(source, stage)
    empty_venv = stage / "venv"
    (empty_venv / "lib" / "site-packages").mkdir(parents=True)
    wasm = out / "plainpy.wasm"
    subprocess.run(
        [str(COMPONENTIZE_PY), "--quiet", "-d", str(src / "wit"), "-w", "plainpy",
         "componentize", "--python-path", str(src), "app", "-o", str(wasm)],
        check=True, cwd=src, env={**os.environ, "VIRTUAL_ENV": str(empty_venv)},
        timeout=600,
    )
    return wasm


def build_js(source: Path, stage: Path, out: Path) -> Path:
    """Builds app.js against wit/ into out/plainjs.wasm with componentize-js,
    as sdk-js's lockfile pins it (scripts/setup-node.sh installs it and
    prints the Node it runs on)."""
    src = staged(source, stage)
    node = subprocess.run(
        [str(REPO / "scripts" / "setup-node.sh")], check=True, capture_output=True, text=True, timeout=900,
    ).stdout.strip()
    cli = REPO / "sdk-js" / "node_modules" / "@bytecodealliance" / "componentize-js" / "src" / "cli.js"
    wasm = out / "plainjs.wasm"
    subprocess.run(
        [node, str(cli), str(src / "app.js"), "--wit", str(src / "wit"), "-n", "plainjs", "-o", str(wasm)],
        check=True, cwd=src, timeout=600,
    )
    return wasm


def build_compiled(language: str, source: Path, out: Path) -> Path:
    """Builds a compiled language's component (its code against the bindings
    of its own wit/, no SDK) into out/NAME.wasm with
    scripts/build-LANGUAGE-plugin.sh, in place: the script writes nothing
    into the tree, and caches the component under a hash of its inputs and
    their paths in the repository, so a rerun reuses it. The toolchain is
    $MCP_WASM_HOST_LANGUAGE, else what scripts/setup-LANGUAGE.sh prints."""
    var = f"MCP_WASM_HOST_{language.upper()}"
    toolchain = os.environ.get(var) or subprocess.run(
        [str(REPO / "scripts" / f"setup-{language}.sh")], check=True, capture_output=True, text=True, timeout=900,
    ).stdout.strip()
    script = f"build-{language}-plugin.sh"
    run = subprocess.run(
        [str(REPO / "scripts" / script), str(out), source.name],
        cwd=REPO, capture_output=True, text=True, timeout=900,
        env={**os.environ, var: toolchain, "MCP_WASM_HOST_PLUGIN_SRC": str(source.parent)},
    )
    assert run.returncode == 0, f"scripts/{script} failed:\n{run.stderr}"
    return out / f"{source.name}.wasm"


def build_c(source: Path, stage: Path, out: Path) -> Path:
    """app.c with wit-bindgen's C bindings, clang-19 and wasi-libc."""
    return build_compiled("c", source, out)


def build_go(source: Path, stage: Path, out: Path) -> Path:
    """The Go module with wit-bindgen's Go bindings, for GOOS=wasip1."""
    return build_compiled("go", source, out)


# language: (source directory, builder, WIT package)
LANGUAGES = {
    "python": (REPO / "tests" / "python" / "plain_wit", build_python, "demo:plainpy@0.1.0"),
    "js": (REPO / "tests" / "python" / "plain_wit_js", build_js, "demo:plainjs@0.1.0"),
    "c": (REPO / "tests" / "python" / "plain_wit_c" / "plainc", build_c, "demo:plainc@0.1.0"),
    "go": (REPO / "tests" / "python" / "plain_wit_go" / "plaingo", build_go, "demo:plaingo@0.1.0"),
}


@pytest.fixture(scope="module", params=sorted(LANGUAGES))
def component(request, tmp_path_factory):
    """(plugins directory, WIT package) of the component built from the
    language's sources."""
    source, build, package = LANGUAGES[request.param]
    stage = tmp_path_factory.mktemp(f"plain-{request.param}-src")
    out = tmp_path_factory.mktemp(f"plain-{request.param}")
    wasm = build(source, stage, out)
    assert wasm.read_bytes()[:8] == b"\0asm\x0d\x00\x01\x00", f"{wasm} is not a component"
    (out / "policy.toml").write_text("")
    return out, package


CALLS = [
    # (tool, arguments, is_error, structured content, text it contains)
    ("greet", {"name": "Ada"}, False, {"result": "hello, Ada"}, "hello, Ada"),
    ("greet", {"name": "Ada", "nick": None}, False, {"result": "hello, Ada"}, "hello, Ada"),
    ("greet", {"name": "Ada", "nick": "Countess"}, False, {"result": "hello, Countess"}, "hello, Countess"),
    ("total", {"values": []}, False, {"result": 0}, "0"),
    ("total", {"values": [2**31 - 1, 2**31 - 1, 2**31 - 1, -5]}, False,
     {"result": 3 * (2**31 - 1) - 5}, str(3 * (2**31 - 1) - 5)),
    ("parse-count", {"text": "42"}, False, {"result": 42}, "42"),
    ("parse-count", {"text": "forty-two"}, True, {"error": "not a count: 'forty-two'"}, "not a count: 'forty-two'"),
    ("parse-count", {"text": "4294967296"}, True, {"error": "not a count: '4294967296'"}, "not a count"),
    ("words", {"text": "one  two\tthree"}, False, {"result": ["one", "two", "three"]}, "three"),
    ("words", {"text": "   "}, False, {"result": None}, "null"),
    ("midpoint", {"a": {"x": 0, "y": 0}, "b": {"x": 3, "y": -4}}, False, {"x": 1.5, "y": -2}, "1.5"),
    ("place", {"at": {"x": 3, "y": 4}, "label": "p"}, False,
     {"at": {"x": 3, "y": 4}, "distance": 5, "label": "p"}, "\"distance\":5"),
    ("place", {"at": {"x": 3, "y": 4}}, False, {"at": {"x": 3, "y": 4}, "distance": 5, "label": None}, "5"),
]

# What only the compiled languages' components export: a u64 at the edge of
# its range. WIT package -> (tools, calls as in CALLS).
NEXT = ({"next"}, [
    ("next", {"n": 0}, False, {"result": 1}, "1"),
    ("next", {"n": 2**64 - 2}, False, {"result": 2**64 - 1}, str(2**64 - 1)),
    ("next", {"n": 2**64 - 1}, False, {"result": None}, "null"),
])
EXTRA = {"demo:plainc@0.1.0": NEXT, "demo:plaingo@0.1.0": NEXT}

BAD_ARGUMENTS = [
    ("total", {"values": [2**31]}),  # beyond s32
    ("total", {"values": ["1"]}),  # not an integer
    ("greet", {}),  # a required parameter missing
    ("greet", {"name": "x", "extra": 1}),  # an unknown parameter
    ("midpoint", {"a": {"x": 0}, "b": {"x": 0, "y": 0}}),  # a record field missing
    ("place", {"at": {"x": 0, "y": 0, "z": 0}}),  # an unknown record field
]


def calls(package: str) -> list:
    """CALLS, and the calls of what only this component exports."""
    return CALLS + EXTRA.get(package, (set(), []))[1]


@pytest.fixture(scope="module")
def session(component):
    """One session with the real binary (loading a componentize-py
    component compiles tens of MiB of code): the tools listed, the results
    of CALLS, what BAD_ARGUMENTS got, and a last call after those."""
    plugins, package = component

    async def body(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        results = [await session.call_tool(name, args) for name, args, *_ in calls(package)]
        refused = []
        for name, args in BAD_ARGUMENTS:
            try:
                refused.append(await session.call_tool(name, args))
            except Exception as e:  # a protocol error is a refusal too
                refused.append(e)
        last = await session.call_tool("greet", {"name": "still here"})
        return tools, results, refused, last

    return with_session(plugins, plugins / "policy.toml", body)


def test_every_exported_function_is_a_tool_with_a_derived_schema(component, session):
    tools, *_ = session
    _, package = component
    # componentize-py's components also export its pre-initialisation hook,
    # `exports#init`, which the host leaves out as the toolchain's own.
    assert set(tools) == TOOLS | EXTRA.get(package, (set(), []))[0]
    place = tools["place"].input_schema
    assert place["type"] == "object"
    assert place["required"] == ["at"], "an option parameter may be left out"
    point = place["properties"]["at"]
    assert point["type"] == "object" and point["required"] == ["x", "y"]
    assert point["additionalProperties"] is False
    total = tools["total"].input_schema["properties"]["values"]
    assert total["type"] == "array"
    assert (total["items"]["minimum"], total["items"]["maximum"]) == (-(2**31), 2**31 - 1)
    # A record result is the structured content itself; anything else is
    # wrapped in one field, `result`.
    assert tools["place"].output_schema["properties"]["at"]["required"] == ["x", "y"]
    assert "result" in tools["total"].output_schema["properties"]
    for tool in tools.values():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        if tool.output_schema is not None:
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
    if package in EXTRA:
        # scripts/build-c-plugin.sh and build-go-plugin.sh add the WIT's docs
        # (sdk-tool componentize --docs): the descriptions are the doc comments.
        assert tools["greet"].description == "Greets someone, by nickname if there is one."
        assert tools["midpoint"].description == "The point halfway between two points."
        nxt = tools["next"]
        assert nxt.input_schema["properties"]["n"]["maximum"] == 2**64 - 1
        assert nxt.description == "The next whole number, or none after the largest `u64`."
        return
    # The toolchain keeps the WIT's types but writes no `package-docs`
    # section, so the descriptions are the generated ones (docs/writing-plugins.md).
    assert tools["greet"].description == (
        "The WIT function `greet`: `func(name: string, nick: option<string>) -> string`."
    )
    assert tools["midpoint"].description == (
        f"The WIT function `{package.replace('@', '/geometry@')}#midpoint`: `func(a: point, b: point) -> point`."
    )


def test_the_official_client_calls_each_function(component, session):
    _, results, *_ = session
    _, package = component
    for (name, args, is_error, structured, text), result in zip(calls(package), results, strict=True):
        what = f"{name}({args}): {result}"
        assert bool(result.is_error) == is_error, what
        assert result.structured_content == structured, what
        assert "".join(text.split()) in "".join(text_of(result).split()), what


def test_arguments_outside_the_schema_are_refused_before_the_guest_runs(session):
    *_, refused, last = session
    for (name, args), result in zip(BAD_ARGUMENTS, refused, strict=True):
        assert isinstance(result, Exception) or result.is_error, f"{name}({args}) was accepted: {result}"
    assert not last.is_error and last.structured_content == {"result": "hello, still here"}
