"""Resources, resource templates, interactive views, prompts and completions
(WIT 0.2.1, world `plugin-full`): the decorators that declare them and the
plain-Python logic that serves them. `world.py` turns the results into WIT
values; nothing here imports the bindings."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Union

from . import content as c
from . import docstring
from .errors import InvalidArguments, NotFound
from .tool import _NAME, Icon

# The MIME type of an interactive view (MCP Apps).
VIEW_MIME_TYPE = "text/html;profile=mcp-app"
# The most values a completion returns; the rest set `has_more`.
MAX_COMPLETIONS = 100


# --- declarations ------------------------------------------------------------

@dataclass(frozen=True)
class ViewCsp:
    """Origins an interactive view may reach (MCP Apps `_meta.ui.csp`)."""

    connect_domains: Sequence[str] = ()
    resource_domains: Sequence[str] = ()
    frame_domains: Sequence[str] = ()
    base_uri_domains: Sequence[str] = ()


@dataclass(frozen=True)
class ViewPermissions:
    """Browser permissions an interactive view asks for."""

    camera: bool = False
    microphone: bool = False
    geolocation: bool = False
    clipboard_write: bool = False


@dataclass(frozen=True)
class ViewSettings:
    """What makes a resource an interactive view (see `view`)."""

    csp: Optional[ViewCsp] = None
    permissions: Optional[ViewPermissions] = None
    domain: Optional[str] = None
    prefers_border: Optional[bool] = None


@dataclass(frozen=True)
class Contents:
    """One part of a resource's contents: text (a str) or a blob (bytes).
    A resource handler may return a list of them instead of one str/bytes."""

    uri: str
    body: Union[str, bytes]
    mime_type: Optional[str] = None


@dataclass
class ResourceSpec:
    uri: str
    name: str
    title: Optional[str]
    description: Optional[str]
    mime_type: Optional[str]
    size: Optional[int]
    annotations: Optional[c.Annotations]
    icons: Sequence[Icon]
    view: Optional[ViewSettings]
    handler: Callable[[], Any]


@dataclass
class TemplateSpec:
    uri_template: str
    name: str
    title: Optional[str]
    description: Optional[str]
    mime_type: Optional[str]
    annotations: Optional[c.Annotations]
    icons: Sequence[Icon]
    handler: Callable[..., Any]
    takes_uri: bool


@dataclass(frozen=True)
class PromptArgument:
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    required: bool = True


@dataclass
class PromptSpec:
    name: str
    title: Optional[str]
    description: Optional[str]
    arguments: list[PromptArgument]
    icons: Sequence[Icon]
    handler: Callable[..., Any]


@dataclass
class PromptResult:
    """A filled-in prompt: its messages, each a str (from the user), a
    `(role, content)` tuple or a `{"role", "content"}` dict, where content is
    a str or a content block; and an optional description."""

    messages: list[Any]
    description: Optional[str] = None


@dataclass
class Served:
    """Everything a plugin serves beside its tools, in declaration order."""

    resources: dict[str, ResourceSpec] = field(default_factory=dict)
    templates: dict[str, TemplateSpec] = field(default_factory=dict)
    prompts: dict[str, PromptSpec] = field(default_factory=dict)
    # (kind, prompt name or URI template, argument) -> handler(value, context)
    completions: dict[tuple[str, str, str], Callable[[str, dict[str, str]], Any]] = field(default_factory=dict)
    # tool name -> (view URI, model-visible)
    tool_views: dict[str, tuple[str, bool]] = field(default_factory=dict)


# What the decorators add to; the world's exports serve it.
SERVED = Served()


def _description(fn: Optional[Callable[..., Any]], description: Optional[str]) -> tuple[Optional[str], dict[str, str]]:
    summary, described = docstring.parse(fn.__doc__ if fn is not None else None)
    return description or summary or None, described


def static_resource(uri: str, *, name: Optional[str] = None, title: Optional[str] = None,
                    description: Optional[str] = None, mime_type: Optional[str] = None,
                    size: Optional[int] = None, annotations: Optional[c.Annotations] = None,
                    icons: Sequence[Icon] = (), text: Optional[str] = None, blob: Optional[bytes] = None,
                    served: Optional[Served] = None) -> Any:
    """Declares the resource `uri`. Either give its contents (`text=` or
    `blob=`), or decorate a function without parameters that returns them
    (a str, bytes, or a list of `Contents`):

        @static_resource("notes://readme", mime_type="text/markdown")
        def readme() -> str:
            \"\"\"What the notes plugin does.\"\"\"
            return "# Notes ..."

    The name defaults to the function's; the description to the first
    paragraph of its docstring."""
    return _resource(uri, name=name, title=title, description=description, mime_type=mime_type, size=size,
                     annotations=annotations, icons=icons, view=None, text=text, blob=blob, served=served)


def view(uri: str, *, name: Optional[str] = None, title: Optional[str] = None, description: Optional[str] = None,
         csp: Optional[ViewCsp] = None, permissions: Optional[ViewPermissions] = None,
         domain: Optional[str] = None, prefers_border: Optional[bool] = None,
         html: Optional[str] = None, served: Optional[Served] = None) -> Any:
    """Declares an interactive view (MCP Apps): the resource `uri` (a `ui://`
    URI) with MIME type `text/html;profile=mcp-app`, whose text is an HTML
    document (`html=`, or what the decorated function returns). A tool
    shows its results in it with `@tool(view=uri)`."""
    if not uri.startswith("ui://"):
        raise ValueError(f"view {uri!r}: an interactive view's URI starts with ui://")
    settings = ViewSettings(csp=csp, permissions=permissions, domain=domain, prefers_border=prefers_border)
    return _resource(uri, name=name, title=title, description=description, mime_type=VIEW_MIME_TYPE, size=None,
                     annotations=None, icons=(), view=settings, text=html, blob=None, served=served)


def _resource(uri: str, *, name: Optional[str], title: Optional[str], description: Optional[str],
              mime_type: Optional[str], size: Optional[int], annotations: Optional[c.Annotations],
              icons: Sequence[Icon], view: Optional[ViewSettings], text: Optional[str], blob: Optional[bytes],
              served: Optional[Served]) -> Any:
    registry = served or SERVED
    if not uri or len(uri.encode()) > 2048 or ":" not in uri:
        raise ValueError(f"resource URI {uri!r} must be an absolute URI of at most 2048 bytes")
    if uri in registry.resources:
        raise ValueError(f"two resources have the URI {uri!r}")

    def declare(fn: Optional[Callable[[], Any]]) -> Any:
        text_description, _ = _description(fn, description)
        resource_name = name or (fn.__name__ if fn is not None else None)
        if not resource_name:
            raise ValueError(f"resource {uri!r} needs a name: pass name=")
        handler = fn if fn is not None else (lambda: text if text is not None else bytes(blob or b""))
        registry.resources[uri] = ResourceSpec(
            uri=uri, name=resource_name, title=title, description=text_description, mime_type=mime_type,
            size=size, annotations=annotations, icons=tuple(icons), view=view, handler=handler)
        return fn

    if text is not None or blob is not None:
        if text is not None and blob is not None:
            raise ValueError(f"resource {uri!r}: give text= or blob=, not both")
        declare(None)
        return None
    return declare


def resource_template(uri_template: str, *, name: Optional[str] = None, title: Optional[str] = None,
                      description: Optional[str] = None, mime_type: Optional[str] = None,
                      annotations: Optional[c.Annotations] = None, icons: Sequence[Icon] = (),
                      served: Optional[Served] = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declares a family of resources whose URIs follow `uri_template`
    (`{var}` matches one path segment, `{+var}` any text). The decorated
    function gets each variable as a keyword argument (and `uri=` if it has
    a parameter of that name) and returns the contents as `static_resource`'s
    does:

        @resource_template("notes://note/{id}", mime_type="text/plain")
        def note(id: str) -> str: ...
    """
    registry = served or SERVED
    if uri_template in registry.templates:
        raise ValueError(f"two resource templates are {uri_template!r}")

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        text_description, _ = _description(fn, description)
        takes_uri = "uri" in inspect.signature(fn).parameters
        registry.templates[uri_template] = TemplateSpec(
            uri_template=uri_template, name=name or fn.__name__, title=title, description=text_description,
            mime_type=mime_type, annotations=annotations, icons=tuple(icons), handler=fn, takes_uri=takes_uri)
        return fn

    return declare


def prompt(fn: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None, title: Optional[str] = None,
           description: Optional[str] = None, icons: Sequence[Icon] = (),
           served: Optional[Served] = None) -> Any:
    """Declares a prompt; use as `@prompt` or `@prompt(title=...)`. Each
    parameter of the function is an argument (a str; required unless it has
    a default; described in the docstring's Args section). The function
    returns a str (one user message), a list of messages, or a
    `PromptResult`:

        @prompt(title="Review code")
        def review(code: str, focus: str = "bugs") -> str:
            \"\"\"Asks for a code review.

            Args:
                code: The code to review.
                focus: What to look for.
            \"\"\"
            return f"Review this code for {focus}:\\n{code}"
    """
    registry = served or SERVED

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        prompt_name = name or fn.__name__
        if not _NAME.match(prompt_name):
            raise ValueError(f"prompt name {prompt_name!r} must be 1 to 128 characters of A-Z a-z 0-9 _ . -")
        if prompt_name in registry.prompts:
            raise ValueError(f"two prompts are named {prompt_name!r}")
        text_description, described = _description(fn, description)
        arguments = []
        for p in inspect.signature(fn).parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise ValueError(f"prompt {prompt_name!r}: *args and **kwargs cannot be arguments")
            arguments.append(PromptArgument(name=p.name, description=described.get(p.name),
                                            required=p.default is inspect.Parameter.empty))
        registry.prompts[prompt_name] = PromptSpec(
            name=prompt_name, title=title, description=text_description, arguments=arguments,
            icons=tuple(icons), handler=fn)
        return fn

    return declare(fn) if fn is not None else declare


def completion(*, argument: str, prompt: Optional[str] = None, template: Optional[str] = None,
               served: Optional[Served] = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declares the suggestions for `argument` of the prompt named `prompt`,
    or for the variable `argument` of the resource template `template`. The
    function gets what the user has typed so far and a dict of the other
    arguments already filled in, and returns the values, best first (the SDK
    sends at most 100 and says whether there were more):

        @completion(prompt="review", argument="focus")
        def focus(value: str, context: dict[str, str]) -> list[str]:
            return [f for f in ("bugs", "style", "speed") if f.startswith(value)]
    """
    if (prompt is None) == (template is None):
        raise ValueError("completion: give prompt= or template=, one of them")
    registry = served or SERVED
    key = ("prompt", prompt, argument) if prompt is not None else ("template", template, argument)

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        registry.completions[key] = fn  # type: ignore[index]
        return fn

    return declare


def tool_view(tool: str, resource_uri: str, *, model_visible: bool = True, served: Optional[Served] = None) -> None:
    """Shows the results of `tool` in the interactive view `resource_uri`
    (`@tool(view=...)` calls this). `model_visible=False`: only the view may
    call the tool."""
    (served or SERVED).tool_views[tool] = (resource_uri, model_visible)


# --- serving -----------------------------------------------------------------

def read(uri: str, served: Optional[Served] = None) -> list[Contents]:
    """The contents of `uri`: a listed resource, else the first template
    that matches it. Raises NotFound, or what the handler raises."""
    registry = served or SERVED
    spec = registry.resources.get(uri)
    if spec is not None:
        return _contents(uri, spec.mime_type, spec.handler())
    for template in registry.templates.values():
        variables = match_template(template.uri_template, uri)
        if variables is not None:
            kwargs = dict(variables, uri=uri) if template.takes_uri else variables
            return _contents(uri, template.mime_type, template.handler(**kwargs))
    raise NotFound(f"no resource has the URI {uri!r}")


def _contents(uri: str, mime_type: Optional[str], value: Any) -> list[Contents]:
    if isinstance(value, (str, bytes, bytearray)):
        return [Contents(uri, value if isinstance(value, str) else bytes(value), mime_type)]
    if isinstance(value, Contents):
        return [value]
    parts = list(value)
    if not parts or not all(isinstance(p, Contents) for p in parts):
        raise TypeError("a resource handler returns a str, bytes, or a non-empty list of Contents")
    return parts


def get_prompt(name: str, arguments: dict[str, str], served: Optional[Served] = None) -> PromptResult:
    """Fills in the prompt `name`. Raises NotFound, InvalidArguments (a
    required argument is missing, or one the prompt does not take is
    given), or what the handler raises."""
    spec = (served or SERVED).prompts.get(name)
    if spec is None:
        raise NotFound(f"no prompt is called {name!r}")
    known = {a.name for a in spec.arguments}
    for a in spec.arguments:
        if a.required and a.name not in arguments:
            raise InvalidArguments(f"the argument {a.name!r} is required")
    unknown = sorted(set(arguments) - known)
    if unknown:
        raise InvalidArguments(f"prompt {name!r} takes no argument {unknown[0]!r}")
    value = spec.handler(**arguments)
    if isinstance(value, PromptResult):
        return value
    return PromptResult(messages=[value] if isinstance(value, (str, tuple, dict)) or _is_block(value)
                        else list(value))


def _is_block(value: Any) -> bool:
    return isinstance(value, c.CONTENT_TYPES)


def message(m: Any) -> tuple[str, Any]:
    """A prompt message as (role, content block): `m` is a str or block (from
    the user), a `(role, content)` tuple or a `{"role", "content"}` dict."""
    if isinstance(m, dict):
        role, body = m["role"], m["content"]
    elif isinstance(m, tuple):
        role, body = m
    else:
        role, body = "user", m
    if role not in ("user", "assistant"):
        raise ValueError(f"a prompt message's role is 'user' or 'assistant', not {role!r}")
    if isinstance(body, str):
        body = c.Text(body)
    if not _is_block(body):
        raise TypeError(f"a prompt message's content is a str or a content block, not {type(body).__name__}")
    return role, body


def complete(kind: str, target: str, argument: str, value: str, context: dict[str, str],
             served: Optional[Served] = None) -> tuple[list[str], Optional[int], bool]:
    """Suggestions for an argument: (values, total, has_more); empty when
    nothing is registered for it."""
    handler = (served or SERVED).completions.get((kind, target, argument))
    if handler is None:
        return [], None, False
    values = [str(v) for v in handler(value, context)]
    return values[:MAX_COMPLETIONS], len(values), len(values) > MAX_COMPLETIONS


def match_template(template: str, uri: str) -> Optional[dict[str, str]]:
    """The variables of `uri` if it matches `template`: `{name}` matches one
    or more characters other than `/`, `{+name}` one or more of any; the
    rest must match exactly."""
    pattern = []
    names = []
    pos = 0
    for m in re.finditer(r"\{(\+?)([A-Za-z0-9_.]+)\}", template):
        pattern.append(re.escape(template[pos:m.start()]))
        pattern.append(f"(?P<v{len(names)}>.+?)" if m.group(1) else f"(?P<v{len(names)}>[^/]+?)")
        names.append(m.group(2))
        pos = m.end()
    pattern.append(re.escape(template[pos:]))
    found = re.fullmatch("".join(pattern), uri, re.DOTALL)
    if found is None:
        return None
    variables: dict[str, str] = {}
    for i, n in enumerate(names):
        # A name used twice keeps its first value.
        variables.setdefault(n, found.group(f"v{i}"))
    return variables
