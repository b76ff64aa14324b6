"""The Python SDK's guest library (sdk-python/mcp_wasm_sdk) in plain CPython,
over the stub bindings componentize-py generates for a world: what the SDK's
unit tests (test_sdk_schema.py, test_sdk_store.py) import it with."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]
COMPONENTIZE_PY = Path(sys.executable).parent / "componentize-py"


@contextlib.contextmanager
def sdk_over_stubs(wit: Path, world: str, stubs: Path) -> Iterator[None]:
    """Generates the bindings of `world` (of the WIT directory `wit`) into
    `stubs` and puts them and the SDK first on sys.path; after, takes them
    off and forgets the modules imported from them."""
    subprocess.run([str(COMPONENTIZE_PY), "-q", "-d", str(wit), "-w", world, "bindings", str(stubs)], check=True)
    paths = [str(stubs), str(REPO / "sdk-python")]
    sys.path[:0] = paths
    try:
        yield
    finally:
        for p in paths:
            sys.path.remove(p)
        for name in list(sys.modules):
            if name.split(".")[0] in ("mcp_wasm_sdk", "wit_world", "componentize_py_types"):
                del sys.modules[name]
