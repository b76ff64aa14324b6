"""A component from plain WIT (wit/plain.wit), built with componentize-py and
no SDK: it knows nothing of mcp-wasm-host. tests/python/test_plain_wit.py
builds it and serves it with the real binary as a generic component."""

from __future__ import annotations

import math
from typing import List, Optional

import wit_world
from componentize_py_types import Err
from wit_world import exports
from wit_world.exports.geometry import Placed, Point


class WitWorld(wit_world.WitWorld):
    def greet(self, name: str, nick: Optional[str]) -> str:
        return f"hello, {nick if nick is not None else name}"

    def total(self, values: List[int]) -> int:
        return sum(values)

    def parse_count(self, text: str) -> int:
        if not (text.isascii() and text.isdigit()) or int(text) > 0xFFFF_FFFF:
            raise Err(f"not a count: {text!r}")
        return int(text)

    def words(self, text: str) -> Optional[List[str]]:
        found = text.split()
        return found or None


class Geometry(exports.Geometry):
    def midpoint(self, a: Point, b: Point) -> Point:
        return Point(x=(a.x + b.x) / 2, y=(a.y + b.y) / 2)

    def place(self, at: Point, label: Optional[str]) -> Placed:
        return Placed(at=at, distance=math.hypot(at.x, at.y), label=label)
