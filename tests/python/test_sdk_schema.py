"""Unit tests of the Python guest SDK (sdk-python/mcp_wasm_sdk) in plain CPython:
schema derivation from type hints and docstrings, argument conversion,
result shaping and error mapping, and the world's exports (`Tools`,
`Resources`, `Prompts`, `Completions`) against componentize-py's stub
bindings (with the host and client imports replaced)."""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, TypedDict

import jsonschema
import pytest

from sdk_bindings import REPO, sdk_over_stubs


@pytest.fixture(scope="module")
def sdk(tmp_path_factory):
    with sdk_over_stubs(REPO / "wit", "plugin-full", tmp_path_factory.mktemp("stubs")):
        yield importlib.import_module("mcp_wasm_sdk")


def spec_of(sdk, fn, **kwargs):
    return importlib.import_module("mcp_wasm_sdk.tool").make_spec(fn, **kwargs)


def schema_of(sdk, hint):
    return importlib.import_module("mcp_wasm_sdk.schema").schema_for(hint)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


@dataclass
class Point:
    """A point on the plane.

    Attributes:
        x: Across.
        y: Up.
    """

    x: float
    y: float = 0.0


@dataclass
class Shape:
    name: Annotated[str, "What to call it."]
    points: list[Point]
    color: Color = Color.RED
    tags: list[str] = field(default_factory=list)


class Window(TypedDict, total=False):
    start: int
    end: int


@dataclass
class Positive:
    n: int

    def __post_init__(self):
        if self.n <= 0:
            raise ValueError("n must be positive")


@dataclass
class Loop:
    next: Optional["Loop"]


# --- type hints → JSON Schema -------------------------------------------------

@pytest.mark.parametrize("hint,schema", [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (bool, {"type": "boolean"}),
    (Any, {"anyOf": [{"type": k} for k in ("string", "number", "boolean", "object", "array", "null")]}),
    (list[int], {"type": "array", "items": {"type": "integer"}}),
    (tuple[str, ...], {"type": "array", "items": {"type": "string"}}),
    (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    (dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    (Optional[str], {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
    (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    (Optional[list[int]], {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}),
    (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    (Literal[1, "x"], {"enum": [1, "x"]}),
    (Optional[Literal["a"]], {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}),
    (Color, {"type": "string", "enum": ["red", "green"]}),
    (Annotated[int, "A count."], {"type": "integer", "description": "A count."}),
    (Annotated[int, "A count.", {"minimum": 0}], {"type": "integer", "description": "A count.", "minimum": 0}),
    (Optional[Point], {"anyOf": [{
        "description": "A point on the plane.", "type": "object", "properties": {
            "x": {"type": "number", "description": "Across."},
            "y": {"type": "number", "description": "Up.", "default": 0.0}},
        "required": ["x"], "additionalProperties": False}, {"type": "null"}]}),
    (Optional[int | str], {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}),
])
def test_each_supported_type_hint_has_its_json_schema(sdk, hint, schema):
    assert schema_of(sdk, hint) == schema
    jsonschema.Draft202012Validator.check_schema(schema)


def test_nested_dataclasses_enums_and_defaults_become_nested_objects(sdk):
    schema = schema_of(sdk, Shape)
    assert schema["required"] == ["name", "points"]
    assert schema["additionalProperties"] is False
    p = schema["properties"]
    assert p["name"] == {"type": "string", "description": "What to call it."}
    assert p["points"]["items"]["properties"]["x"] == {"type": "number", "description": "Across."}
    assert p["color"] == {"type": "string", "enum": ["red", "green"], "default": "red"}
    assert p["tags"] == {"type": "array", "items": {"type": "string"}, "default": []}
    assert "description" not in schema  # not dataclass's generated "Shape(name: ...)"


def test_a_typeddict_requires_only_its_required_keys(sdk):
    schema = schema_of(sdk, Window)
    assert schema["properties"] == {"start": {"type": "integer"}, "end": {"type": "integer"}}
    assert "required" not in schema and schema["additionalProperties"] is False


@pytest.mark.parametrize("hint", [bytes, tuple[int, str], dict[int, str], Loop, Literal[b"x"]])
def test_a_type_without_json_schema_is_refused_when_declared(sdk, hint):
    with pytest.raises(TypeError):
        schema_of(sdk, hint)


# --- @tool: names, descriptions, parameters -------------------------------------

def test_a_tool_takes_its_name_description_and_parameter_descriptions_from_the_function(sdk):
    def scale(shape: Shape, factor: Annotated[float, "Overrides the docstring."] = 2, note: Optional[str] = None) -> Shape:
        """Scales a shape
        around the origin.

        A second paragraph that is not part of the description.

        Args:
            shape: The shape to scale,
                over two lines.
            factor (float): Ignored in favour of Annotated.
            note: Anything.

        Returns:
            The scaled shape.
        """

    spec = spec_of(sdk, scale, title="Scale", read_only=True)
    assert (spec.name, spec.title, spec.read_only, spec.destructive) == ("scale", "Scale", True, None)
    assert spec.description == "Scales a shape around the origin."
    p = spec.input_schema["properties"]
    assert p["shape"]["description"] == "The shape to scale, over two lines."
    assert p["factor"] == {"type": "number", "description": "Overrides the docstring.", "default": 2}
    assert p["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Anything.", "default": None}
    assert spec.input_schema["required"] == ["shape"]
    assert spec.output_schema == schema_of(sdk, Shape)
    jsonschema.Draft202012Validator.check_schema(spec.input_schema)


def test_a_tool_without_parameters_has_an_empty_closed_object_schema(sdk):
    def now() -> str:
        """Says hello."""
    assert spec_of(sdk, now).input_schema == {"type": "object", "properties": {}, "additionalProperties": False}
    assert spec_of(sdk, now).output_schema is None


@pytest.mark.parametrize("returns,schema", [
    (list[int], {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
                 "required": ["result"], "additionalProperties": False}),
    (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
    (str, None), (None, None), (Any, None),
])
def test_the_output_schema_follows_the_return_annotation(sdk, returns, schema):
    def f():
        """Doc."""
    f.__annotations__ = {"return": returns}
    assert spec_of(sdk, f).output_schema == schema


def test_declaration_mistakes_are_refused_with_a_reason(sdk):
    def untyped(x):
        """Doc."""

    def undocumented(x: int):
        pass

    def star(*xs: int):
        """Doc."""

    with pytest.raises(TypeError, match="needs a type hint"):
        spec_of(sdk, untyped)
    with pytest.raises(ValueError, match="needs a description"):
        spec_of(sdk, undocumented)
    assert spec_of(sdk, undocumented, description="Given.").description == "Given."
    with pytest.raises(TypeError, match="plain named parameter"):
        spec_of(sdk, star)
    with pytest.raises(ValueError, match="must be 1 to 128 characters"):
        spec_of(sdk, undocumented, name="has space", description="x")
    with pytest.raises(ValueError, match="task_support must be one of"):
        spec_of(sdk, undocumented, description="x", task_support="sometimes")
    registry = importlib.import_module("mcp_wasm_sdk.tool").Registry()
    sdk.tool(undocumented, description="x", registry=registry)
    with pytest.raises(ValueError, match="two tools are named"):
        sdk.tool(undocumented, description="x", registry=registry)


# --- arguments → Python values ------------------------------------------------------

def test_arguments_are_converted_to_the_hinted_python_types(sdk):
    seen = {}

    def draw(shape: Shape, window: Window, scale: float = 1.0, mode: Literal["fill", "line"] = "line") -> str:
        """Draws."""
        seen.update(shape=shape, window=window, scale=scale, mode=mode)
        return "ok"

    args = {"shape": {"name": "t", "points": [{"x": 1}, {"x": 2, "y": 3}], "color": "green"},
            "window": {"start": 1}, "scale": 2}
    spec_of(sdk, draw).run(json.dumps(args))
    assert seen["shape"] == Shape("t", [Point(1.0, 0.0), Point(2.0, 3.0)], Color.GREEN)
    assert isinstance(seen["shape"].points[0].x, float)
    assert seen["window"] == {"start": 1}
    assert (seen["scale"], seen["mode"]) == (2.0, "line")


@pytest.mark.parametrize("arguments,message", [
    ('{"shape": {"name": "t", "points": [{"x": "far"}]}}', "argument `shape.points[0].x`: expected a number, got string"),
    ('{"shape": {"name": "t"}}', "argument `shape.points`: is required"),
    ('{"shape": {"name": "t", "points": [], "size": 3}}', "argument `shape.size`: unknown argument"),
    ('{"shape": {"name": "t", "points": [], "color": "blue"}}', "argument `shape.color`: expected one of ['red', 'green']"),
    ('{"positive": {"n": -1}}', "argument `positive`: n must be positive"),
    ('{"count": true}', "argument `count`: expected an integer, got boolean"),
    ('{"count": 9007199254740993.0}', "argument `count`: 9007199254740992.0 cannot be taken exactly"),
    ('{"count": -1e300}', "argument `count`: -1e+300 cannot be taken exactly"),
    ("[1]", "argument `arguments`: expected an object, got array"),
    ("{nope", "arguments are not JSON"),
])
def test_arguments_that_do_not_fit_are_invalid_arguments_naming_the_argument(sdk, arguments, message):
    def f(shape: Optional[Shape] = None, positive: Optional[Positive] = None, count: int = 0) -> str:
        """Doc."""
        return "unreachable"

    with pytest.raises(sdk.InvalidArguments) as e:
        spec_of(sdk, f).run(arguments)
    assert message in str(e.value)


def test_integers_are_read_exactly_and_a_float_form_only_below_2_53(sdk):
    seen = []

    def f(count: int) -> str:
        """Doc."""
        seen.append(count)
        return "ok"

    for text, want in [("9007199254740993", 9007199254740993), ("-9223372036854775809", -9223372036854775809),
                       ("18446744073709551615", 2**64 - 1), ("9007199254740991.0", 2**53 - 1), ("-1e3", -1000)]:
        spec_of(sdk, f).run(f'{{"count": {text}}}')
        assert type(seen[-1]) is int and seen[-1] == want, text


# --- return values → results ---------------------------------------------------------

def test_return_values_become_text_structured_content_or_blocks(sdk):
    to_result = importlib.import_module("mcp_wasm_sdk.output").to_result
    assert to_result("hi") == sdk.Result([sdk.Text("hi")])
    r = to_result(Point(1.0, 2.0))
    assert r.structured == {"x": 1.0, "y": 2.0} and json.loads(r.content[0].text) == r.structured
    assert to_result([1, 2]).structured == {"result": [1, 2]}
    assert to_result({"color": Color.RED}).structured == {"color": "red"}
    img = sdk.image(b"\x89PNG", "image/png")
    assert to_result([img, sdk.text("a")]).content == [img, sdk.Text("a")]
    mixed = to_result(sdk.Result(["summary", img], structured=Point(0, 0)))
    assert mixed.content == [sdk.Text("summary"), img] and mixed.structured == {"x": 0, "y": 0}
    assert to_result(None) == sdk.Result([])


@pytest.mark.parametrize("error,kind,message", [
    ("InvalidArguments('bad')", "invalid-arguments", "bad"),
    ("Denied('no')", "denied", "no"),
    ("Failed('broke')", "failed", "broke"),
    ("PermissionError('/etc')", "denied", "PermissionError: /etc"),
    ("KeyError('k')", "failed", "KeyError: 'k'"),
    ("ZeroDivisionError()", "failed", "ZeroDivisionError"),
    ("ClientError('denied', 'set sampling')", "denied", "client request denied: set sampling"),
    ("ClientError('rejected', 'no', -1)", "failed", "client request rejected (code -1): no"),
])
def test_every_exception_maps_to_a_tool_error_case(sdk, error, kind, message):
    errors = importlib.import_module("mcp_wasm_sdk.errors")
    assert errors.classify(eval(error, vars(errors))) == (kind, message)


# --- the world's export, against the stub bindings -------------------------------------

@pytest.fixture
def world(sdk, monkeypatch):
    world = importlib.import_module("mcp_wasm_sdk.world")
    registry = importlib.import_module("mcp_wasm_sdk.tool").Registry()
    monkeypatch.setattr(world, "REGISTRY", registry)
    calls = []
    monkeypatch.setattr(world.host, "log", lambda level, message: calls.append(("log", level, message)))
    monkeypatch.setattr(world.host, "report_progress", lambda *a: calls.append(("progress", *a)))
    world.calls = calls
    world.registry = registry
    return world


def test_the_export_lists_and_calls_tools_and_maps_errors(sdk, world):
    def divide(a: int, b: int) -> float:
        """Divides a by b."""
        sdk.log.info(f"dividing by {b}")
        sdk.progress(1, 2, "half")
        return a / b

    sdk.tool(divide, title="Divide", idempotent=True, registry=world.registry)
    (d,) = world.Tools().list_tools()
    assert (d.name, d.title, d.annotations.title, d.annotations.idempotent_hint) == ("divide", "Divide", "Divide", True)
    assert json.loads(d.input_schema)["required"] == ["a", "b"]
    assert json.loads(d.output_schema)["properties"]["result"] == {"type": "number"}
    assert d.task_support == world.wit.TaskSupport.FORBIDDEN

    sdk.tool(divide, name="slow_divide", task_support="required", registry=world.registry)
    assert world.Tools().list_tools()[1].task_support == world.wit.TaskSupport.REQUIRED

    result = world.Tools().call_tool("divide", '{"a": 3, "b": 2}')
    assert json.loads(result.structured_content) == {"result": 1.5} and not result.is_error
    assert world.calls == [("log", world.wit.LogLevel.INFO, "dividing by 2"), ("progress", 1.0, 2.0, "half")]

    Err = world.Err
    for name, arguments, case, message in [
        ("divide", '{"a": 1, "b": 0}', "ToolError_Failed", "ZeroDivisionError: division by zero"),
        ("divide", '{"a": 1}', "ToolError_InvalidArguments", "argument `b`: is required"),
        ("nope", "{}", "ToolError_UnknownTool", "unknown tool: nope"),
    ]:
        with pytest.raises(Err) as e:
            world.Tools().call_tool(name, arguments)
        assert (type(e.value.value).__name__, e.value.value.value) == (case, message)


def test_every_content_helper_maps_to_its_wit_block(sdk, world):
    blocks = [sdk.text("t"), sdk.image(b"i", "image/png"), sdk.audio(b"a", "audio/wav"),
              sdk.resource_link("file:///r", "r", size=3), sdk.resource("file:///e", "body", "text/plain"),
              sdk.resource("file:///b", b"\x00", annotations=sdk.Annotations(["user"], 0.5))]
    wit = [world._block(b) for b in blocks]
    assert [type(b).__name__ for b in wit] == [
        "ContentBlock_Text", "ContentBlock_Image", "ContentBlock_Audio",
        "ContentBlock_ResourceLink", "ContentBlock_Resource", "ContentBlock_Resource"]
    assert wit[4].value.body.value == "body" and wit[5].value.body.value == b"\x00"
    assert wit[5].value.annotations.audience == [world.wit.Role.USER]


def test_sample_and_elicit_return_plain_python_values(sdk, world, monkeypatch):
    client = world.client
    sent = {}

    def create_message(request):
        sent["request"] = request
        return client.SampledMessage(world.wit.Role.ASSISTANT, [client.SamplingContent_Text("4")], "m", None)

    monkeypatch.setattr(client, "create_message", create_message)
    assert sdk.sample("2+2?", system="Be brief.", max_tokens=5) == "4"
    r = sent["request"]
    assert (r.system_prompt, r.max_tokens, r.messages[0].content[0].value) == ("Be brief.", 5, "2+2?")

    answers = iter([
        client.ElicitResult(client.ElicitAction.ACCEPT, '{"x": 1}'),
        client.ElicitResult(client.ElicitAction.DECLINE, None),
    ])
    monkeypatch.setattr(client, "elicit", lambda message, schema: (sent.update(schema=schema), next(answers))[1])
    assert sdk.elicit("Where?", Point) == Point(1.0, 0.0)
    assert "additionalProperties" not in json.loads(sent["schema"])
    assert sdk.elicit("Where?", Point) is None

    def refuse(*args):
        raise world.Err(client.RequestError_Denied("grant [plugins.p.client] sampling"))

    monkeypatch.setattr(client, "create_message", refuse)
    with pytest.raises(sdk.ClientError) as e:
        sdk.sample("hi")
    assert e.value.kind == "denied"


# --- resources, prompts and completions (WIT 0.2.1) -------------------------------------

@pytest.fixture
def served(sdk, world, monkeypatch):
    serve = importlib.import_module("mcp_wasm_sdk.serve")
    served = serve.Served()
    monkeypatch.setattr(serve, "SERVED", served)
    return served


def test_a_plugin_that_declares_nothing_serves_empty_lists(sdk, world, served):
    assert world.Resources().list_resources() == []
    assert world.Resources().list_resource_templates() == []
    assert world.Resources().list_tool_views() == []
    assert world.Prompts().list_prompts() == []
    c = world.wcompletions
    request = c.CompletionRequest(c.CompletionTarget_Prompt("p"), "a", "x", [])
    assert world.Completions().complete(request) == c.Completion([], None, False)
    for call, name in [(lambda: world.Resources().read_resource("x://nothing"), "ServeError_NotFound"),
                       (lambda: world.Prompts().get_prompt("nope", []), "ServeError_NotFound")]:
        with pytest.raises(world.Err) as e:
            call()
        assert type(e.value.value).__name__ == name


def test_resources_templates_and_views_are_listed_and_read(sdk, world, served):
    sdk.static_resource("notes://readme", name="readme", description="Read me.", mime_type="text/plain",
                        text="hello")

    @sdk.static_resource("notes://logo", mime_type="image/png")
    def logo() -> bytes:
        """The logo."""
        return b"\x89PNG"

    @sdk.resource_template("notes://note/{id}/{+rest}", mime_type="text/plain")
    def note(id: str, rest: str, uri: str) -> str:
        """One note."""
        return f"{id}|{rest}|{uri}"

    sdk.view("ui://notes/board", name="board", html="<p>board</p>", prefers_border=True,
             csp=sdk.ViewCsp(connect_domains=["https://api.example.com"]))

    @sdk.tool(view="ui://notes/board", registry=world.registry)
    def show() -> str:
        """Shows the board."""
        return "ok"

    listed = world.Resources().list_resources()
    assert [(r.uri, r.name, r.description, r.mime_type) for r in listed] == [
        ("notes://readme", "readme", "Read me.", "text/plain"),
        ("notes://logo", "logo", "The logo.", "image/png"),
        ("ui://notes/board", "board", None, "text/html;profile=mcp-app"),
    ]
    assert listed[0].view is None
    assert listed[2].view.prefers_border is True
    assert listed[2].view.csp.connect_domains == ["https://api.example.com"]
    (t,) = world.Resources().list_resource_templates()
    assert (t.uri_template, t.name, t.description) == ("notes://note/{id}/{+rest}", "note", "One note.")
    (v,) = world.Resources().list_tool_views()
    assert (v.tool, v.resource_uri, v.model_visible) == ("show", "ui://notes/board", True)

    (part,) = world.Resources().read_resource("notes://readme")
    assert (part.uri, part.mime_type, part.body) == ("notes://readme", "text/plain", world.wit.ResourceBody_Text("hello"))
    (part,) = world.Resources().read_resource("notes://logo")
    assert part.body == world.wit.ResourceBody_Blob(b"\x89PNG")
    (part,) = world.Resources().read_resource("notes://note/7/a/b")
    assert part.body.value == "7|a/b|notes://note/7/a/b"
    with pytest.raises(world.Err) as e:
        world.Resources().read_resource("notes://note//x")  # {id} matches one or more characters
    assert type(e.value.value).__name__ == "ServeError_NotFound"


def test_templates_match_one_segment_or_any_text(sdk):
    match = importlib.import_module("mcp_wasm_sdk.serve").match_template
    assert match("test://template/{id}/data", "test://template/123/data") == {"id": "123"}
    assert match("test://template/{id}/data", "test://template/1/2/data") is None
    assert match("file:///{+path}", "file:///a/b/c.txt") == {"path": "a/b/c.txt"}
    assert match("x://{a}-{b}", "x://1-2-3") == {"a": "1", "b": "2-3"}
    assert match("x://fixed", "x://fixed") == {} and match("x://fixed", "x://other") is None


def test_a_prompt_takes_its_arguments_from_the_function_and_fills_them_in(sdk, world, served):
    @sdk.prompt(title="Review")
    def review(code: str, focus: str = "bugs"):
        """Asks for a review.

        Args:
            code: The code.
            focus: What to look for.
        """
        if focus == "none":
            raise sdk.InvalidArguments("focus on something")
        return [("assistant", "I will look."), sdk.resource("x://code", code), f"Review for {focus}: {code}"]

    (p,) = world.Prompts().list_prompts()
    assert (p.name, p.title, p.description) == ("review", "Review", "Asks for a review.")
    assert [(a.name, a.description, a.required) for a in p.arguments] == [
        ("code", "The code.", True), ("focus", "What to look for.", False)]

    result = world.Prompts().get_prompt("review", [("code", "x = 1")])
    assert [m.role for m in result.messages] == [world.wit.Role.ASSISTANT, world.wit.Role.USER, world.wit.Role.USER]
    assert result.messages[2].content.value.text == "Review for bugs: x = 1"
    assert result.messages[1].content.value.body.value == "x = 1"
    for arguments, message in [([], "the argument 'code' is required"),
                               ([("code", "x"), ("other", "y")], "prompt 'review' takes no argument 'other'"),
                               ([("code", "x"), ("focus", "none")], "focus on something")]:
        with pytest.raises(world.Err) as e:
            world.Prompts().get_prompt("review", arguments)
        assert (type(e.value.value).__name__, e.value.value.value) == ("ServeError_InvalidArguments", message)

    @sdk.prompt
    def shaped() -> Any:
        """A described result."""
        return sdk.PromptResult(["hi"], description="for you")

    assert world.Prompts().get_prompt("shaped", []).description == "for you"


def test_completions_are_truncated_to_100_and_say_there_are_more(sdk, world, served):
    @sdk.completion(prompt="review", argument="focus")
    def focus(value: str, context: dict) -> list:
        return [f"{value}{i}{context.get('code', '')}" for i in range(150)]

    @sdk.completion(template="notes://note/{id}", argument="id")
    def ids(value: str, context: dict) -> list:
        return ["7"]

    c = world.wcompletions
    got = world.Completions().complete(c.CompletionRequest(c.CompletionTarget_Prompt("review"), "focus", "f",
                                                           [("code", "!")]))
    assert (len(got.values), got.values[0], got.total, got.has_more) == (100, "f0!", 150, True)
    got = world.Completions().complete(c.CompletionRequest(c.CompletionTarget_ResourceTemplate("notes://note/{id}"),
                                                           "id", "", []))
    assert (got.values, got.total, got.has_more) == (["7"], 1, False)
    got = world.Completions().complete(c.CompletionRequest(c.CompletionTarget_Prompt("review"), "code", "", []))
    assert got.values == [] and not got.has_more


def test_declaration_mistakes_of_resources_and_prompts_are_refused(sdk, served):
    sdk.static_resource("x://a", name="a", text="1")
    with pytest.raises(ValueError, match="two resources"):
        sdk.static_resource("x://a", name="a", text="2")
    with pytest.raises(ValueError, match="absolute URI"):
        sdk.static_resource("relative", name="r", text="x")
    with pytest.raises(ValueError, match="ui://"):
        sdk.view("https://x/view", name="v", html="<p>")
    with pytest.raises(ValueError, match="prompt name"):
        sdk.prompt(lambda: "x", name="bad name")
    with pytest.raises(ValueError, match="prompt= or template="):
        sdk.completion(argument="a")


def test_templates_match_as_the_shared_cases_say(sdk):
    """The cases the host and every SDK share (tests/uri-templates.json)."""
    serve = importlib.import_module("mcp_wasm_sdk.serve")
    corpus = json.loads((REPO / "tests" / "uri-templates.json").read_text())
    assert len(corpus["cases"]) > 20
    for case in corpus["cases"]:
        assert serve.match_template(case["template"], case["uri"]) == case["vars"], case
