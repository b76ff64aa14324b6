"""Fixtures shared by the Python-side tests.

`installed_host`: the path of the mcp-wasm-host binary as a user installs it
(a static x86_64-unknown-linux-musl binary, `cargo install`ed from the
packaged crate by scripts/install-host.sh), built once per session.
MCP_WASM_HOST_INSTALLED_BIN names an already installed one instead.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def installed_host() -> Path:
    explicit = os.environ.get("MCP_WASM_HOST_INSTALLED_BIN")
    if explicit:
        path = Path(explicit)
        assert path.is_file(), f"MCP_WASM_HOST_INSTALLED_BIN={explicit} is not a file"
        return path
    done = subprocess.run([str(REPO / "scripts" / "install-host.sh")], cwd=REPO,
                          stdout=subprocess.PIPE, text=True, timeout=3600)
    assert done.returncode == 0, "scripts/install-host.sh failed (its output is above)"
    path = Path(done.stdout.strip().splitlines()[-1])
    assert path.is_file(), f"scripts/install-host.sh printed {path}, which is not a file"
    return path
