"""textstats: an mcp-wasm-host tool plugin written in Python.

It implements the `plugin` world of `wit/plugin.wit`
(package `mcp-wasm-host:plugin@0.1.0`) and is built into a WASI 0.2 component
by componentize-py (see `scripts/build-python-plugin.sh`):

    componentize-py -d wit -w plugin componentize app -o textstats.wasm

The `wit_world` package imported below does not exist on disk: componentize-py
generates it from the WIT while building. `componentize-py -d wit -w plugin
bindings DIR` writes stubs of it (for editors and type checkers only).

Tools:
  word_count(text) -> counts of words, lines and characters of `text`.
"""

import json

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import host
from wit_world.imports.types import (
    CallResult,
    ContentBlock_Text,
    LogLevel,
    TextContent,
    ToolAnnotations,
    ToolDefinition,
    ToolError_InvalidArguments,
    ToolError_UnknownTool,
)

JSON_SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"

WORD_COUNT_INPUT_SCHEMA = {
    "$schema": JSON_SCHEMA_2020_12,
    "type": "object",
    "properties": {
        "text": {
            "type": "string",
            "description": "The text to measure.",
        },
    },
    "required": ["text"],
    "additionalProperties": False,
}

WORD_COUNT_OUTPUT_SCHEMA = {
    "$schema": JSON_SCHEMA_2020_12,
    "type": "object",
    "properties": {
        "words": {
            "type": "integer",
            "minimum": 0,
            "description": "Runs of non-whitespace characters.",
        },
        "lines": {
            "type": "integer",
            "minimum": 0,
            "description": "Lines; a final line break does not start a new line.",
        },
        "chars": {
            "type": "integer",
            "minimum": 0,
            "description": "Unicode code points.",
        },
    },
    "required": ["words", "lines", "chars"],
    "additionalProperties": False,
}


def count(text: str) -> dict:
    """Counts the words, lines and characters (code points) of `text`.

    Words are maximal runs of non-whitespace characters (`str.split()`), and
    lines follow `str.splitlines()`: "" has 0 lines, "a" and "a\\n" have 1,
    "a\\nb" has 2.
    """
    return {
        "words": len(text.split()),
        "lines": len(text.splitlines()),
        "chars": len(text),
    }


def _word_count(arguments: dict) -> CallResult:
    text = arguments.get("text")
    if not isinstance(text, str):
        # The host validates arguments against the input schema first, so
        # this only guards against a host that did not.
        raise Err(ToolError_InvalidArguments("`text` must be a string"))
    counts = count(text)
    # Log sizes only, never the text itself: it may hold secrets.
    host.log(
        LogLevel.INFO,
        "word_count: {chars} chars, {words} words, {lines} lines".format(**counts),
    )
    summary = "words: {words}, lines: {lines}, chars: {chars}".format(**counts)
    return CallResult(
        content=[ContentBlock_Text(TextContent(text=summary, annotations=None))],
        structured_content=json.dumps(counts, separators=(",", ":")),
        is_error=False,
    )


_TOOLS = {
    "word_count": (
        ToolDefinition(
            name="word_count",
            title="Word count",
            description=(
                "Counts the words, lines and characters of a text, like `wc`. "
                "Words are runs of non-whitespace characters; characters are "
                "Unicode code points."
            ),
            input_schema=json.dumps(WORD_COUNT_INPUT_SCHEMA),
            output_schema=json.dumps(WORD_COUNT_OUTPUT_SCHEMA),
            annotations=ToolAnnotations(
                title="Word count",
                read_only_hint=True,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
        ),
        _word_count,
    ),
}


class Tools(exports.Tools):
    """The `tools` interface export."""

    def list_tools(self) -> list:
        return [definition for definition, _ in _TOOLS.values()]

    def call_tool(self, name: str, arguments: str) -> CallResult:
        entry = _TOOLS.get(name)
        if entry is None:
            raise Err(ToolError_UnknownTool(f"unknown tool: {name}"))
        try:
            args = json.loads(arguments) if arguments else {}
        except ValueError as e:
            raise Err(ToolError_InvalidArguments(f"arguments are not JSON: {e}"))
        if not isinstance(args, dict):
            raise Err(ToolError_InvalidArguments("arguments must be a JSON object"))
        return entry[1](args)
