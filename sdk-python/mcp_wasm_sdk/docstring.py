"""Reads a tool's description and its parameters' descriptions from a Google-style docstring."""

from __future__ import annotations

import inspect
import re

# Sections whose entries describe parameters or fields.
_PARAM_SECTIONS = {"args", "arguments", "parameters", "params", "attributes", "fields"}
_SECTION = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_ENTRY = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse(doc: str | None) -> tuple[str, dict[str, str]]:
    """Returns the docstring's first paragraph (its lines joined by spaces)
    and the descriptions of the names in its Args/Attributes sections."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line):
            break
        summary.append(line.strip())
    return " ".join(summary), _params(lines)


def _params(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    in_section = False
    base: int | None = None
    current: str | None = None
    for line in lines:
        header = _SECTION.match(line)
        if header and not line.startswith((" ", "\t")):
            in_section = header.group(1).strip().lower() in _PARAM_SECTIONS
            base, current = None, None
            continue
        if not in_section or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:  # prose after the section ends it
            in_section = False
            continue
        if base is None:
            base = indent
        entry = _ENTRY.match(line.strip()) if indent == base else None
        if entry:
            current = entry.group(1).lstrip("*")
            params[current] = entry.group(2).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    return params
