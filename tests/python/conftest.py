"""Fixtures shared by the tests in tests/python."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def installed_host() -> Path:
    """The host as `cargo install` makes it from its packaged crate: a static
    binary (scripts/install-host.sh; cheap when nothing changed), or the one
    MCP_WASM_HOST_INSTALLED_BIN names."""
    given = os.environ.get("MCP_WASM_HOST_INSTALLED_BIN")
    if given:
        return Path(given)
    done = subprocess.run(["scripts/install-host.sh"], cwd=REPO, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, f"scripts/install-host.sh failed:\n{done.stderr}"
    return Path(done.stdout.strip())
