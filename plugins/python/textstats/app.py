"""textstats: an mcp-wasm-host tool plugin written in Python with the guest SDK
(sdk-python/mcp_wasm_sdk), built into a WASI 0.2 component by
scripts/build-python-plugin.sh.

Tools:
  word_count(text) -> counts of words, lines and characters of `text`.
"""

from dataclasses import asdict, dataclass
from typing import Annotated

from mcp_wasm_sdk import Icon, Result, Tools, log, tool  # noqa: F401 (Tools is the world's export)

Count = Annotated[int, {"minimum": 0}]


@dataclass
class Counts:
    """The counts of a text.

    Attributes:
        words: Runs of non-whitespace characters.
        lines: Lines; a final line break does not start a new line.
        chars: Unicode code points.
    """

    words: Count
    lines: Count
    chars: Count


def count(text: str) -> Counts:
    """Counts the words (`str.split()`), lines (`str.splitlines()`: "" has 0,
    "a" and "a\\n" have 1, "a\\nb" has 2) and code points of `text`."""
    return Counts(len(text.split()), len(text.splitlines()), len(text))


@tool(title="Word count", read_only=True, destructive=False, idempotent=True, open_world=False, output=Counts,
      icons=[Icon("https://mcp-wasm-host.example/icons/count.png", mime_type="image/png", sizes=["48x48"])],
      # A long text takes a while: a client that supports tasks may run it as one.
      task_support="optional")
def word_count(text: Annotated[str, "The text to measure."]) -> Result:
    """Counts the words, lines and characters of a text, like `wc`. Words are runs of non-whitespace
    characters; characters are Unicode code points."""
    counts = count(text)
    # Log sizes only, never the text itself: it may hold secrets.
    log.info("word_count: {chars} chars, {words} words, {lines} lines".format(**asdict(counts)))
    return Result(["words: {words}, lines: {lines}, chars: {chars}".format(**asdict(counts))], structured=counts)
