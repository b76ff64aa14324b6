"""Classifies Python type hints (unions, Literal, Enum, dataclass, TypedDict) and lists the fields of object types."""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from . import docstring

NONE_TYPE = type(None)
MISSING = dataclasses.MISSING
# Origins that become a JSON array.
SEQUENCES = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.Set)
# Origins that become a JSON object with string keys.
MAPPINGS = (dict, collections.abc.Mapping)


class UnsupportedType(TypeError):
    """A type hint that has no JSON Schema here (raised when the tool is declared)."""


@dataclass
class Field:
    """A parameter of a tool or a field of a dataclass or TypedDict."""

    name: str
    hint: Any
    required: bool
    default: Any = MISSING
    description: str = ""


def strip_annotated(hint: Any) -> tuple[Any, list[Any]]:
    """`Annotated[T, *meta]` → (T, meta); any other hint → (hint, [])."""
    meta: list[Any] = []
    while get_origin(hint) is Annotated:
        hint, *more = get_args(hint)
        meta.extend(more)
    return hint, meta


def is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def is_literal(hint: Any) -> bool:
    return get_origin(hint) is Literal


def is_enum(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, enum.Enum)


def is_dataclass(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)


def is_typeddict(hint: Any) -> bool:
    return typing.is_typeddict(hint)


def sequence_item(hint: Any) -> tuple[bool, Any]:
    """(True, item hint) when `hint` is list[T], set[T], tuple[T, ...] or Sequence[T]."""
    origin = get_origin(hint) or hint
    if not (isinstance(origin, type) and origin in SEQUENCES):
        return False, None
    args = get_args(hint)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return True, args[0]
        if args:
            raise UnsupportedType(f"{hint!r}: only tuple[T, ...] is supported; use a dataclass for fixed fields")
    return True, args[0] if args else Any


def mapping_value(hint: Any) -> tuple[bool, Any]:
    """(True, value hint) when `hint` is dict[str, T] or Mapping[str, T]."""
    origin = get_origin(hint) or hint
    if not (isinstance(origin, type) and origin in MAPPINGS):
        return False, None
    args = get_args(hint)
    if args and args[0] is not str:
        raise UnsupportedType(f"{hint!r}: JSON object keys are strings, so the key type must be str")
    return True, args[1] if args else Any


def object_fields(hint: Any) -> list[Field] | None:
    """The fields of a dataclass or TypedDict (descriptions from `Annotated`
    or the class docstring's Attributes section), else None."""
    if is_dataclass(hint):
        hints = typing.get_type_hints(hint, include_extras=True)
        _, described = docstring.parse(hint.__doc__)
        out = []
        for f in dataclasses.fields(hint):
            if not f.init:
                continue
            default = f.default
            if default is MISSING and f.default_factory is not MISSING:
                default = f.default_factory()
            required = default is MISSING
            out.append(Field(f.name, hints[f.name], required, default, described.get(f.name, "")))
        return out
    if is_typeddict(hint):
        hints = typing.get_type_hints(hint, include_extras=True)
        _, described = docstring.parse(hint.__doc__)
        required = getattr(hint, "__required_keys__", frozenset(hints))
        return [Field(n, h, n in required, MISSING, described.get(n, "")) for n, h in hints.items()]
    return None


def function_fields(fn: Any, described: dict[str, str]) -> list[Field]:
    """The parameters of a tool function, as fields."""
    hints = typing.get_type_hints(fn, include_extras=True)
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise UnsupportedType(f"{fn.__name__}: parameter {p.name!r} must be a plain named parameter")
        if p.name not in hints:
            raise UnsupportedType(f"{fn.__name__}: parameter {p.name!r} needs a type hint")
        default = MISSING if p.default is p.empty else p.default
        out.append(Field(p.name, hints[p.name], default is MISSING, default, described.get(p.name, "")))
    return out


def class_description(hint: Any) -> str:
    """A dataclass's or TypedDict's own docstring summary (not the one dataclass generates)."""
    doc = hint.__doc__ or ""
    if is_dataclass(hint) and doc.startswith(f"{hint.__name__}("):
        return ""
    return docstring.parse(doc)[0]
