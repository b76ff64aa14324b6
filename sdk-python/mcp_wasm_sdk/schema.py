"""Derives JSON Schemas (2020-12) from Python type hints: the input and output schemas of tools."""

from __future__ import annotations

from typing import Any, get_args

from . import hints as t
from .hints import Field, UnsupportedType

_ANY_TYPES = ("string", "number", "boolean", "object", "array", "null")

_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean", t.NONE_TYPE: "null"}


def json_type(value: Any) -> str:
    """The JSON type name of a Python value."""
    for python, name in (
        (bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
        (type(None), "null"), (list, "array"), (dict, "object"),
    ):
        if isinstance(value, python):
            return name
    return type(value).__name__


def schema_for(hint: Any, _seen: tuple = ()) -> dict:
    """The JSON Schema of values of `hint`. Raises UnsupportedType."""
    hint, meta = t.strip_annotated(hint)
    schema = _bare(hint, _seen)
    for m in meta:
        if isinstance(m, str):
            schema["description"] = m
        elif isinstance(m, dict):
            schema.update(m)
    return schema


def object_schema(fields: list[Field], _seen: tuple = ()) -> dict:
    """`{"type": "object", ...}` with a property per field; fields without a
    default are required; no other properties are allowed."""
    properties = {}
    for f in fields:
        prop = schema_for(f.hint, _seen)
        if f.description and "description" not in prop:
            prop["description"] = f.description
        if not f.required and f.default is not t.MISSING:
            default = _json_default(f.default)
            if default is not _NO_DEFAULT:
                prop["default"] = default
        properties[f.name] = prop
    schema: dict = {"type": "object", "properties": properties}
    required = [f.name for f in fields if f.required]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _bare(hint: Any, seen: tuple) -> dict:
    if hint is Any:
        # Any JSON value, with explicit types: a schema without any
        # validation keyword is not portable.
        return {"anyOf": [{"type": k} for k in _ANY_TYPES]}
    if hint in _PRIMITIVES:
        return {"type": _PRIMITIVES[hint]}
    if t.is_union(hint):
        return _union(get_args(hint), seen)
    if t.is_literal(hint):
        return _enum(list(get_args(hint)))
    if t.is_enum(hint):
        return _enum([m.value for m in hint])
    fields = t.object_fields(hint)
    if fields is not None:
        if hint in seen:
            raise UnsupportedType(f"{hint.__name__} refers to itself; recursive types are not supported")
        schema = object_schema(fields, seen + (hint,))
        description = t.class_description(hint)
        return {"description": description, **schema} if description else schema
    is_seq, item = t.sequence_item(hint)
    if is_seq:
        schema = {"type": "array", "items": schema_for(item, seen)}
        if (getattr(hint, "__origin__", hint)) in (set, frozenset):
            schema["uniqueItems"] = True
        return schema
    is_map, value = t.mapping_value(hint)
    if is_map:
        return {"type": "object", "additionalProperties": schema_for(value, seen)}
    raise UnsupportedType(
        f"no JSON Schema for {hint!r}: use str, int, float, bool, list[T], dict[str, T], "
        "Optional[T], Literal[...], an Enum, a dataclass or a TypedDict"
    )


def _enum(values: list) -> dict:
    kinds = {json_type(v) for v in values}
    bad = kinds - {"string", "integer", "number", "boolean", "null"}
    if bad:
        raise UnsupportedType(f"enum values must be JSON scalars, got {sorted(bad)}")
    schema: dict = {"enum": values}
    if len(kinds) == 1:
        schema = {"type": kinds.pop(), "enum": values}
    return schema


def _union(args: tuple, seen: tuple) -> dict:
    options = [a for a in args if a is not t.NONE_TYPE]
    nullable = len(options) < len(args)
    if len(options) > 1:
        schema = {"anyOf": [schema_for(a, seen) for a in options]}
        if nullable:
            schema["anyOf"].append({"type": "null"})
        return schema
    schema = schema_for(options[0], seen)
    if not nullable:
        return schema
    # `anyOf` with a null branch, never a `type` array such as
    # ["string", "null"], which some clients cannot take (the MCP
    # Inspector's --strict check flags it).
    return {"anyOf": [schema, {"type": "null"}]}


_NO_DEFAULT = object()


def _json_default(value: Any) -> Any:
    """A default value as JSON, or _NO_DEFAULT when it has no JSON form."""
    from .output import to_json

    try:
        return to_json(value)
    except TypeError:
        return _NO_DEFAULT
