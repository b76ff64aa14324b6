"""Converts a call's JSON arguments to the Python values its handler's type hints ask for."""

from __future__ import annotations

from typing import Any, get_args

from . import hints as t
from .errors import InvalidArguments
from .hints import Field
from .schema import json_type, schema_for


# 2^53: a float of a smaller magnitude that is an integer came from exactly
# that integer; from here on neighbouring integers read as the same float, so
# one in float form (the host sends `9007199254740993.0` on as the double it
# read, 9007199254740992.0) is refused rather than rounded. An integer
# written as one is read exactly at any size.
_EXACT_IN_A_FLOAT = 2.0 ** 53


class ArgumentError(InvalidArguments):
    """An argument does not fit its type; the message names the argument's path."""

    def __init__(self, path: str, message: str):
        super().__init__(f"argument `{path}`: {message}")
        self.path = path


def convert_object(fields: list[Field], value: Any, path: str = "") -> dict[str, Any]:
    """The keyword arguments for `fields` from a JSON object."""
    if not isinstance(value, dict):
        raise ArgumentError(path or "arguments", f"expected an object, got {json_type(value)}")
    known = {f.name for f in fields}
    for key in value:
        if key not in known:
            raise ArgumentError(_join(path, key), f"unknown argument; expected one of {sorted(known)}")
    out = {}
    for f in fields:
        where = _join(path, f.name)
        if f.name in value:
            out[f.name] = convert(f.hint, value[f.name], where)
        elif f.required:
            raise ArgumentError(where, "is required")
    return out


def convert(hint: Any, value: Any, path: str) -> Any:
    """`value` (parsed JSON) as a value of `hint`. Raises ArgumentError."""
    hint, _ = t.strip_annotated(hint)
    if hint is Any:
        return value
    if hint is t.NONE_TYPE:
        return _expect(value is None, value, path, "null", None)
    if hint is bool:
        return _expect(isinstance(value, bool), value, path, "a boolean", value)
    if hint is int:
        if isinstance(value, float) and value.is_integer():
            if abs(value) >= _EXACT_IN_A_FLOAT:
                raise ArgumentError(path, f"{value!r} cannot be taken exactly as an integer: a number written "
                                          "with a fraction or an exponent is exact only from -9007199254740991 "
                                          "to 9007199254740991 (2^53 - 1); write it as a plain integer")
            value = int(value)
        return _expect(isinstance(value, int) and not isinstance(value, bool), value, path, "an integer", value)
    if hint is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return _expect(ok, value, path, "a number", float(value) if ok else None)
    if hint is str:
        return _expect(isinstance(value, str), value, path, "a string", value)
    if t.is_union(hint):
        return _union(get_args(hint), value, path)
    if t.is_literal(hint):
        for option in get_args(hint):
            if option == value and type(option) is type(value):
                return option
        raise ArgumentError(path, f"expected one of {list(get_args(hint))!r}, got {value!r}")
    if t.is_enum(hint):
        for member in hint:
            if member.value == value and type(member.value) is type(value):
                return member
        raise ArgumentError(path, f"expected one of {[m.value for m in hint]!r}, got {value!r}")
    fields = t.object_fields(hint)
    if fields is not None:
        kwargs = convert_object(fields, value, path)
        if t.is_typeddict(hint):
            return kwargs
        try:
            return hint(**kwargs)
        except (ValueError, TypeError) as e:  # the class's own checks (__post_init__)
            raise ArgumentError(path, str(e)) from e
    is_seq, item = t.sequence_item(hint)
    if is_seq:
        if not isinstance(value, list):
            raise ArgumentError(path, f"expected an array, got {json_type(value)}")
        items = [convert(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
        origin = getattr(hint, "__origin__", hint)
        return origin(items) if origin in (set, frozenset, tuple) else items
    is_map, item = t.mapping_value(hint)
    if is_map:
        if not isinstance(value, dict):
            raise ArgumentError(path, f"expected an object, got {json_type(value)}")
        return {k: convert(item, v, _join(path, k)) for k, v in value.items()}
    raise ArgumentError(path, f"cannot convert to {hint!r}")


def _union(options: tuple, value: Any, path: str) -> Any:
    if value is None and t.NONE_TYPE in options:
        return None
    options = tuple(o for o in options if o is not t.NONE_TYPE)
    errors = []
    for option in options:
        try:
            return convert(option, value, path)
        except ArgumentError as e:
            errors.append(e)
    # An option whose error lies inside the value matched its JSON type:
    # its error says more than a list of the types.
    deeper = [e for e in errors if e.path != path]
    if len(options) == 1 or len(deeper) == 1:
        raise (deeper or errors)[0]
    wanted = " or ".join(_describe(o) for o in options)
    raise ArgumentError(path, f"expected {wanted}, got {json_type(value)}")


def _describe(hint: Any) -> str:
    kind = schema_for(hint).get("type", "a value")
    return kind if isinstance(kind, str) else "/".join(kind)


def _expect(ok: bool, value: Any, path: str, wanted: str, result: Any) -> Any:
    if not ok:
        raise ArgumentError(path, f"expected {wanted}, got {json_type(value)}")
    return result


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
