"""@NAME@: an MCP tool for mcp-wasm-host, built into a WebAssembly component."""

from dataclasses import dataclass
from typing import Annotated

from mcp_wasm_sdk import InvalidArguments, Tools, tool  # Tools is the component's export


@dataclass
class Stats:
    count: int
    mean: float
    min: float
    max: float


@tool(title="Number statistics", read_only=True, open_world=False)
def number_stats(numbers: list[float], digits: Annotated[int, {"minimum": 0, "maximum": 10}] = 2) -> Stats:
    """Count numbers and give their mean, minimum and maximum.

    Args:
        numbers: The numbers to summarize.
        digits: Decimal places of the mean.
    """
    if not numbers:
        raise InvalidArguments("`numbers` is empty")
    mean = round(sum(numbers) / len(numbers), digits)
    return Stats(count=len(numbers), mean=mean, min=min(numbers), max=max(numbers))
