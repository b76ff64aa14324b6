"""Turns what a tool handler returns into a Result, and derives the output schema from its return annotation."""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any, get_args

from . import hints as t
from .content import CONTENT_TYPES, Result, Text
from .schema import schema_for

# A structured result that is not a JSON object is wrapped as {"result": value}
# (MCP's structured content is an object).
WRAP_KEY = "result"


def to_json(value: Any) -> Any:
    """`value` as JSON data: dataclasses become objects, Enums their values,
    tuples and sets arrays. Raises TypeError for anything else."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json(v) for v in value]
    raise TypeError(f"cannot return a {type(value).__name__} as JSON")


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def to_result(value: Any) -> Result:
    """A handler's return value as a Result: str → one text block; a content
    block or a list of them → those blocks; a Result as is; None → no
    content; anything else → structured content plus the same JSON as text."""
    if isinstance(value, Result):
        blocks = [Text(b) if isinstance(b, str) else b for b in value.content]
        structured = None if value.structured is None else _as_object(value.structured)
        return Result(blocks, structured, value.is_error)
    if isinstance(value, str):
        return Result([Text(value)])
    if isinstance(value, CONTENT_TYPES):
        return Result([value])
    if isinstance(value, list) and value and all(isinstance(b, CONTENT_TYPES) for b in value):
        return Result(list(value))
    if value is None:
        return Result([])
    data = _as_object(value)
    return Result([Text(dumps(data))], data)


def _as_object(value: Any) -> dict:
    data = to_json(value)
    return data if isinstance(data, dict) else {WRAP_KEY: data}


def output_schema(hint: Any) -> dict | None:
    """The output schema for a return annotation: that of a dataclass,
    TypedDict or dict[str, T]; {"result": ...} around a list, number, bool
    or Literal; none for str, None, content blocks, Result or no annotation."""
    if hint is None or hint is Any or _is_unstructured(hint):
        return None
    schema = schema_for(hint)
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {WRAP_KEY: schema}, "required": [WRAP_KEY],
            "additionalProperties": False}


def _is_unstructured(hint: Any) -> bool:
    hint, _ = t.strip_annotated(hint)
    if hint in (str, t.NONE_TYPE, Result) or hint in CONTENT_TYPES:
        return True
    if t.is_union(hint):
        return any(_is_unstructured(a) for a in get_args(hint))
    is_seq, item = t.sequence_item(hint) if not t.is_literal(hint) else (False, None)
    return is_seq and _is_unstructured(item)
