"""Fixtures several test files share: `installed_host` (the host as a user
installs it) and `image` (the container image built from it)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def installed_host() -> Path:
    """The host as a user installs it: the static binary scripts/install-host.sh
    builds with `cargo install` from the packaged crate (cheap when nothing
    changed). MCP_WASM_HOST_INSTALLED_BIN names one already installed instead."""
    explicit = os.environ.get("MCP_WASM_HOST_INSTALLED_BIN")
    if explicit:
        path = Path(explicit)
        assert path.is_file(), f"MCP_WASM_HOST_INSTALLED_BIN={explicit} does not exist"
        return path
    done = subprocess.run(
        [str(REPO / "scripts" / "install-host.sh")], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert done.returncode == 0, "scripts/install-host.sh failed (its output is above)"
    path = Path(done.stdout.strip().splitlines()[-1])
    assert path.is_file(), f"scripts/install-host.sh printed {path}, which does not exist"
    return path


@pytest.fixture(scope="session")
def image(installed_host: Path, tmp_path_factory):
    """The container image built from `installed_host` by scripts/build-image.sh
    (an OCI image layout; see image_layout.py)."""
    from image_layout import build

    if not Path("/usr/share/ca-certificates/mozilla").is_dir():
        pytest.fail("Debian's ca-certificates is not installed: run scripts/setup-image.sh (scripts/test.sh does)")
    return build(tmp_path_factory.mktemp("image") / "oci", installed_host)
