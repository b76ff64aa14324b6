"""textstats: an mcp-wasm-host tool plugin written in Python with the guest SDK
(sdk-python/mcp_wasm_sdk), built into a WASI 0.2 component by
scripts/build-python-plugin.sh.

Tools:
  word_count(text) -> counts of words, lines and characters of `text`.

Resources:
  textstats://metrics -> what each count means (Markdown).

Prompts:
  summarize_text_stats(text, style?) -> asks the model to summarize a text's
  counts, with the counts already worked out (`style` completes to "brief"
  or "detailed").
"""

from dataclasses import asdict, dataclass
from typing import Annotated

from mcp_wasm_sdk import (Icon, InvalidArguments, Result, Tools, completion, log, prompt, resource,  # noqa: F401
                          static_resource, tool)  # (Tools is the world's export)

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


METRICS_URI = "textstats://metrics"

METRICS = """# textstats metrics

| count | what it counts |
|---|---|
| words | runs of non-whitespace characters (`str.split()`) |
| lines | lines; a final line break does not start a new one ("" has 0, "a" and "a\\n" have 1) |
| chars | Unicode code points, not bytes ("héllo" has 5) |
"""

static_resource(METRICS_URI, name="metrics", title="What textstats counts",
                description="How word_count counts words, lines and characters.",
                mime_type="text/markdown", text=METRICS)

STYLES = ("brief", "detailed")


@prompt(title="Summarize text statistics")
def summarize_text_stats(text: str, style: str = "brief") -> list:
    """Asks the model to summarize a text's word, line and character counts.

    Args:
        text: The text to measure.
        style: "brief" (one sentence) or "detailed" (a short paragraph).
    """
    if style not in STYLES:
        raise InvalidArguments(f"style is one of {', '.join(STYLES)}, not {style!r}")
    counts = count(text)
    ask = ("In one sentence" if style == "brief" else "In a short paragraph") + \
        ", summarize the size of this text for a reader."
    return [
        resource(METRICS_URI, METRICS, "text/markdown"),
        "{ask}\nIts counts are: words: {words}, lines: {lines}, chars: {chars}.\n\nThe text:\n{text}".format(
            ask=ask, text=text, **asdict(counts)),
    ]


@completion(prompt="summarize_text_stats", argument="style")
def complete_style(value: str, context: dict) -> list:
    return [s for s in STYLES if s.startswith(value)]
