"""wordcount: the `languages` benchmark's Python probe. It implements
`word_count` exactly as plugins/testing/wordcount does in Rust (the floor),
so the benchmark compares languages and not tools."""

from dataclasses import dataclass
from typing import Annotated

from mcp_wasm_sdk import Tools, log, tool  # noqa: F401 (Tools is the world's export)

# The text on which word_count logs it first, as every probe does:
# host/benches/languages.rs holds calls alive on that log line.
HOLD = "hold: log this line"


@dataclass
class Counts:
    """The counts of a text.

    Attributes:
        words: Runs of non-whitespace characters.
        lines: Lines; a final line break does not start a new line.
        chars: Unicode code points.
    """

    words: int
    lines: int
    chars: int


@tool(output=Counts)
def word_count(text: Annotated[str, "The text to measure."]) -> Counts:
    """Counts the words, lines and characters of a text."""
    if text == HOLD:
        log.info(HOLD)
    return Counts(len(text.split()), len(text.splitlines()), len(text))
