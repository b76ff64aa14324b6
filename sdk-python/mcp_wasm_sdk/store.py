"""Remembering things between calls: a small key-value API over the standard
`wasi:keyvalue@0.2.0-draft2` the host serves.

Each call runs in a fresh instance, so a tool keeps what it must remember in
a **bucket** of the host's store (a file under the server's state directory,
or Valkey/Redis). The server's policy grants buckets by name, per plugin,
and nothing else opens:

    [plugins.notes.keyvalue]
    buckets = ["default"]

A tool opens a bucket and reads and writes its keys:

    from mcp_wasm_sdk import tool
    from mcp_wasm_sdk.store import Bucket

    @tool
    def count() -> str:
        \"\"\"Count the calls of this tool, across calls and restarts.\"\"\"
        calls = Bucket.open("default").increment("calls")
        return f"called {calls} times"

`mcp-wasm-sdk-build` makes the component import `wasi:keyvalue` only when a
module of the plugin imports this one (`from mcp_wasm_sdk.store import ...`
or `from mcp_wasm_sdk import store`); other plugins import nothing of it.

A failure raises a `StoreError`, which fails the call with its message when
left uncaught: `AccessDenied` (a bucket the policy does not grant) as a
`denied` tool error naming the policy key that grants it, the others as
`failed`. A value over one of the host's quotas is refused with a message
naming that quota's key.
"""

from __future__ import annotations

import json
from typing import Callable, Iterator, Optional, Union

from .errors import ToolError

try:
    from componentize_py_types import Err
    from wit_world.imports import atomics as _atomics
    from wit_world.imports import store as _store
except ImportError:  # a component built without wasi:keyvalue (see `Bucket.open`)
    _store = None

# How many times `Bucket.update` tries before it gives up to other writers of
# the same key. Each try costs the host two store operations (of
# `max_operations` per call).
UPDATE_ATTEMPTS = 64

Value = Union[bytes, bytearray, memoryview, str]


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


class StoreError(ToolError):
    """A store operation failed. Uncaught, it fails the call as `failed`
    with its message; `bucket` names the bucket."""

    kind = "failed"

    def __init__(self, bucket: str, message: str):
        super().__init__(message)
        self.bucket = bucket


class AccessDenied(StoreError):
    """The policy does not grant this plugin the bucket: add it to
    `[plugins.NAME.keyvalue] buckets` in the server's policy. Uncaught, it
    fails the call as `denied`."""

    kind = "denied"

    def __init__(self, bucket: str):
        super().__init__(
            bucket,
            f"this plugin may not open the key-value bucket {_quoted(bucket)}: the server's policy grants it "
            f"with `[plugins.<this plugin>.keyvalue] buckets = [{_quoted(bucket)}]`",
        )


class NoSuchStore(StoreError):
    """The host has no store for the bucket."""

    def __init__(self, bucket: str):
        super().__init__(bucket, f"the host has no store for the key-value bucket {_quoted(bucket)}")


class Contended(StoreError):
    """`Bucket.update` lost to other writers of the key `UPDATE_ATTEMPTS`
    times in a row."""

    def __init__(self, bucket: str, key: str):
        super().__init__(
            bucket,
            f"key-value bucket {_quoted(bucket)}: {_quoted(key)} changed under {UPDATE_ATTEMPTS} updates "
            "in a row (other calls are writing it)",
        )
        self.key = key


def _error(bucket: str, operation: str, error: object) -> StoreError:
    """The exception for the host's `store.error` of `operation`."""
    if isinstance(error, _store.Error_AccessDenied):
        return AccessDenied(bucket)
    if isinstance(error, _store.Error_NoSuchStore):
        return NoSuchStore(bucket)
    reason = error.value if isinstance(error, _store.Error_Other) else str(error)
    return StoreError(bucket, f"key-value bucket {_quoted(bucket)}: {operation}: {reason}")


def _as_bytes(value: Value) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"a key-value value is bytes or str, not {type(value).__name__}")


class Bucket:
    """A bucket of the host's key-value store: keys (str) with values
    (bytes), kept across calls and restarts. `Bucket.open(name)` opens one;
    `with Bucket.open(name) as b:` also releases it at the end."""

    def __init__(self, name: str, raw: object):
        self.name = name
        self._raw = raw

    @classmethod
    def open(cls, name: str) -> Bucket:
        """Opens the bucket `name`, if the server's policy grants it to this
        plugin (`[plugins.NAME.keyvalue] buckets`); else raises
        AccessDenied."""
        if _store is None:
            raise StoreError(
                name,
                f"key-value bucket {_quoted(name)}: this component does not import wasi:keyvalue; "
                "mcp-wasm-sdk-build adds it when a module of the plugin imports mcp_wasm_sdk.store",
            )
        try:
            return cls(name, _store.open(name))
        except Err as e:
            raise _error(name, "open", e.value) from None

    def _call(self, operation: str, key: str, run: Callable[[], object]) -> object:
        try:
            return run()
        except Err as e:
            raise _error(self.name, f"{operation} {_quoted(key)}", e.value) from None

    def get(self, key: str) -> Optional[bytes]:
        """The value of `key`, or None if it has none."""
        return self._call("get", key, lambda: self._raw.get(key))

    def get_str(self, key: str) -> Optional[str]:
        """The value of `key` as text, or None if it has none; StoreError if
        it is not UTF-8."""
        value = self.get(key)
        if value is None:
            return None
        try:
            return value.decode()
        except UnicodeDecodeError:
            raise StoreError(self.name, f"key-value bucket {_quoted(self.name)}: get {_quoted(key)}: "
                             "the value is not UTF-8") from None

    def set(self, key: str, value: Value) -> None:
        """Sets `key` to `value` (bytes, or a str kept as UTF-8)."""
        data = _as_bytes(value)
        self._call("set", key, lambda: self._raw.set(key, data))

    def delete(self, key: str) -> None:
        """Deletes `key` (nothing happens if it has no value)."""
        self._call("delete", key, lambda: self._raw.delete(key))

    def exists(self, key: str) -> bool:
        """Whether `key` has a value."""
        return self._call("exists", key, lambda: self._raw.exists(key))

    def increment(self, key: str, delta: int = 1) -> int:
        """Adds `delta` to the number held in `key` (0 if it has no value), in
        one atomic step, and returns the new number."""
        return self._call("increment", key, lambda: _atomics.increment(self._raw, key, delta))

    def keys(self) -> Iterator[str]:
        """Every key of the bucket, read from the host page by page as the
        iteration goes on (in no particular order)."""
        cursor: Optional[str] = None
        while True:
            try:
                page = self._raw.list_keys(cursor)
            except Err as e:
                raise _error(self.name, "list keys", e.value) from None
            yield from page.keys
            cursor = page.cursor
            if cursor is None:
                return

    def update(self, key: str, change: Callable[[Optional[bytes]], Value]) -> bytes:
        """Replaces the value of `key` with `change(current value or None)`,
        atomically: if another call writes the key in between, it reads the
        key again and calls `change` again (up to UPDATE_ATTEMPTS times; then
        Contended). Returns the value it wrote.

            notes.update("log", lambda old: (old or b"") + b"one more line\\n")
        """
        cas = self._call("update", key, lambda: _atomics.Cas.new(self._raw, key))
        try:
            for _ in range(UPDATE_ATTEMPTS):
                current = self._call("update", key, cas.current)
                value = _as_bytes(change(current))
                pending, cas = cas, None  # the swap consumes it
                try:
                    _atomics.swap(pending, value)
                    return value
                except Err as e:
                    if not isinstance(e.value, _atomics.CasError_CasFailed):
                        raise _error(self.name, f"update {_quoted(key)}", e.value.value) from None
                    cas = e.value.value  # a cas of the value now
            raise Contended(self.name, key)
        finally:
            if cas is not None:
                cas.__exit__(None, None, None)

    def close(self) -> None:
        """Releases the bucket (the instance's end releases it too)."""
        exit_ = getattr(self._raw, "__exit__", None)
        if exit_ is not None:
            exit_(None, None, None)

    def __enter__(self) -> Bucket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Bucket({self.name!r})"
