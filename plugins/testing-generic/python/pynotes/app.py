"""A counter and a small notes tool on wasi:keyvalue (wit/pynotes.wit, over
the upstream WIT in the repository's wit/wasi/keyvalue@0.2.0-draft2), built
with componentize-py and no SDK: it knows nothing of mcp-wasm-host, which
serves it as a generic component. host/tests/all/keyvalue_languages.rs
builds it with scripts/build-python-plugin.sh."""

from __future__ import annotations

import functools
from typing import Callable, List, TypeVar

import wit_world
from componentize_py_types import Err
from wit_world.imports import atomics, store

T = TypeVar("T")

# A note's key: its number, zero-padded so that the keys sort in the order
# the notes were added.
NOTE = "note-{:010}"


def store_errors(method: Callable[..., T]) -> Callable[..., T]:
    """The store's errors (an `Err` of `store.Error`) as the tool's error
    text, the `err` of its `result<_, string>`."""

    @functools.wraps(method)
    def wrapper(*args):
        try:
            return method(*args)
        except Err as e:
            error = e.value
            if isinstance(error, store.Error_Other):
                raise Err(f"store error: {error.value}") from None
            if isinstance(error, store.Error_AccessDenied):
                raise Err("store error: access-denied") from None
            raise Err("store error: no-such-store") from None

    return wrapper


class WitWorld(wit_world.WitWorld):
    @store_errors
    def increment(self, key: str) -> int:
        with store.open("default") as bucket:
            return atomics.increment(bucket, key, 1)

    @store_errors
    def add_note(self, text: str) -> int:
        with store.open("notes") as bucket:
            number = atomics.increment(bucket, "count", 1)
            bucket.set(NOTE.format(number), text.encode())
            return number

    @store_errors
    def notes(self) -> List[str]:
        with store.open("notes") as bucket:
            keys: List[str] = []
            cursor = None
            while True:
                page = bucket.list_keys(cursor)
                keys += [k for k in page.keys if k.startswith("note-")]
                cursor = page.cursor
                if cursor is None:
                    break
            values = [bucket.get(key) for key in sorted(keys)]
            return [v.decode() for v in values if v is not None]
