"""The `@tool` decorator: declares a tool from a typed function and runs a call of it."""

from __future__ import annotations

import json
import re
import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal, Optional, Sequence

from . import docstring
from .content import Result
from .convert import convert_object
from .errors import InvalidArguments
from .hints import Field, function_fields
from .output import output_schema, to_result
from .schema import object_schema

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@dataclass(frozen=True)
class Icon:
    """An icon clients may show for a tool. `src` is an `https:` URL or a
    `data:` URI of an image (at most 64 KiB); `sizes` are `WxH` or `any`;
    `theme` is "light" or "dark" (None: any)."""

    src: str
    mime_type: Optional[str] = None
    sizes: Sequence[str] = ()
    theme: Optional[Literal["light", "dark"]] = None


# Whether a call of a tool may run as a task (see `tool`).
TaskSupport = Literal["forbidden", "optional", "required"]
_TASK_SUPPORT = ("forbidden", "optional", "required")


@dataclass
class ToolSpec:
    """Everything the SDK knows about one declared tool."""

    name: str
    title: Optional[str]
    description: str
    input_schema: dict
    output_schema: Optional[dict]
    read_only: Optional[bool]
    destructive: Optional[bool]
    idempotent: Optional[bool]
    open_world: Optional[bool]
    fields: list[Field]
    handler: Callable[..., Any]
    icons: Sequence[Icon] = ()
    task_support: TaskSupport = "forbidden"

    def run(self, arguments: str) -> Result:
        """Parses and converts `arguments` (a JSON object), calls the handler
        and shapes its return value. Exceptions propagate to the caller."""
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError as e:
            raise InvalidArguments(f"arguments are not JSON: {e}") from e
        kwargs = convert_object(self.fields, parsed)
        return to_result(self.handler(**kwargs))


class Registry:
    """The tools a plugin declares, in declaration order."""

    def __init__(self) -> None:
        self.tools: dict[str, ToolSpec] = {}

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self.tools:
            raise ValueError(f"two tools are named {spec.name!r}")
        self.tools[spec.name] = spec


# The registry `@tool` adds to; the world's `Tools` export serves it.
REGISTRY = Registry()


def tool(
    fn: Optional[Callable[..., Any]] = None,
    *,
    name: Optional[str] = None,
    title: Optional[str] = None,
    description: Optional[str] = None,
    read_only: Optional[bool] = None,
    destructive: Optional[bool] = None,
    idempotent: Optional[bool] = None,
    open_world: Optional[bool] = None,
    output: Any = None,
    icons: Sequence[Icon] = (),
    task_support: TaskSupport = "forbidden",
    view: Optional[str] = None,
    registry: Optional[Registry] = None,
) -> Any:
    """Declares `fn` as a tool; use as `@tool` or `@tool(title=..., read_only=True)`.

    The name defaults to the function's; the description to the first
    paragraph of its docstring. Each parameter becomes a property of the
    input schema (its type from the type hint, its description from
    `Annotated[T, "..."]` or the docstring's Args section; a parameter with a
    default is optional). The annotations are hints for clients; `None`
    leaves the MCP default. The output schema comes from the return
    annotation, or from `output` (a type) for a tool that returns a `Result`
    with structured content. `icons` (none by default, at most 8) are shown by
    clients that support them. `task_support` ("forbidden" by default,
    "optional" or "required") lets a call run as an MCP task for clients that
    support tasks; the function is the same either way. `view` names the
    `ui://` URI of an interactive view (declared with `view(...)`) that shows
    the tool's results. The function itself is returned unchanged.
    """

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        spec = make_spec(
            fn, name=name, title=title, description=description, read_only=read_only,
            destructive=destructive, idempotent=idempotent, open_world=open_world, output=output,
            icons=icons, task_support=task_support,
        )
        (registry or REGISTRY).add(spec)
        if view is not None:
            from .serve import tool_view
            tool_view(spec.name, view)
        return fn

    return declare(fn) if fn is not None else declare


def make_spec(fn: Callable[..., Any], *, name: Optional[str] = None, title: Optional[str] = None,
              description: Optional[str] = None, read_only: Optional[bool] = None,
              destructive: Optional[bool] = None, idempotent: Optional[bool] = None,
              open_world: Optional[bool] = None, output: Any = None,
              icons: Sequence[Icon] = (), task_support: TaskSupport = "forbidden") -> ToolSpec:
    """The ToolSpec of `fn`. Raises ValueError or TypeError (UnsupportedType)
    for a declaration the host would refuse or the SDK cannot describe."""
    tool_name = name or fn.__name__
    if not _NAME.match(tool_name):
        raise ValueError(f"tool name {tool_name!r} must be 1 to 128 characters of A-Z a-z 0-9 _ . -")
    if task_support not in _TASK_SUPPORT:
        raise ValueError(f"tool {tool_name!r}: task_support must be one of {', '.join(map(repr, _TASK_SUPPORT))}, "
                         f"not {task_support!r}")
    summary, described = docstring.parse(fn.__doc__)
    text = description or summary
    if not text:
        raise ValueError(f"tool {tool_name!r} needs a description: write a docstring or pass description=")
    fields = function_fields(fn, described)
    returns = output if output is not None else typing.get_type_hints(fn, include_extras=True).get("return")
    return ToolSpec(
        name=tool_name, title=title, description=text,
        input_schema=object_schema(fields), output_schema=output_schema(returns),
        read_only=read_only, destructive=destructive, idempotent=idempotent, open_world=open_world,
        fields=fields, handler=fn, icons=tuple(icons), task_support=task_support,
    )
