"""A test plugin: a counter and a notes tool written with the Python SDK's
store API (`mcp_wasm_sdk.store`) over wasi:keyvalue, as the guide's
"Remembering things" shows them. host/tests/all/keyvalue_sdk/python.rs calls
them through the real binary."""

from mcp_wasm_sdk import Tools, tool  # noqa: F401 (Tools is the component's export)
from mcp_wasm_sdk.store import Bucket


@tool
def count() -> str:
    """Count the calls of this tool, across calls and restarts."""
    calls = Bucket.open("default").increment("calls")
    return f"called {calls} times"


@tool
def add_note(text: str) -> str:
    """Add a note.

    Args:
        text: The note.
    """
    Bucket.open("notes").update("all", lambda old: (old or b"") + f"{text}\n".encode())
    return "noted"


@tool(read_only=True)
def notes() -> str:
    """The notes, one a line, oldest first."""
    return Bucket.open("notes").get_str("all") or ""


@tool
def put(key: str, value: str) -> str:
    """Set `key` of the bucket "notes" to `value`; every key of the bucket
    then, one a line.

    Args:
        key: The key.
        value: The value.
    """
    notes = Bucket.open("notes")
    notes.set(key, value)
    return "\n".join(sorted(notes.keys()))
