"""Fixtures several test files share: `toolchain` (a program a test needs,
or a skip that fails under CI), `installed_host` (the host as a user
installs it) and `image` (the container image built from it); and the
rows of scripts/test.sh's step table for the expensive fixtures."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]


# A session or module fixture whose setup takes this long gets a row in the
# step table scripts/test.sh prints (MCP_WASM_HOST_STEPS_FILE names its file).
FIXTURE_ROW_SECONDS = 5


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """Times the setup of the expensive shared fixtures (the static host's
    install, the image, the packed SDKs, ...) into the step table, so that
    a CI run shows where pytest's time goes."""
    started = time.monotonic()
    failed = True
    try:
        value = yield
        failed = False
        return value
    finally:
        seconds = time.monotonic() - started
        steps = os.environ.get("MCP_WASM_HOST_STEPS_FILE")
        if steps and fixturedef.scope in ("session", "module") and seconds >= FIXTURE_ROW_SECONDS:
            name = f"  pytest fixture {fixturedef.argname}"
            with open(steps, "a", encoding="utf-8") as f:
                f.write(f"{name:<44} {round(seconds):6d}s  {'FAILED' if failed else 'ok'} ({fixturedef.scope} fixture)\n")


def everything_required(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether every test must run: under CI (CI set to anything but empty,
    0 or false) or when scripts/test.sh runs the tests
    (MCP_WASM_HOST_REQUIRE_ALL=1). The Rust tests decide the same way
    (host/tests/all/common/mod.rs, everything_required)."""
    def set_(var: str) -> bool:
        return environ.get(var, "").strip().lower() not in ("", "0", "false")
    return set_("CI") or set_("MCP_WASM_HOST_REQUIRE_ALL")


def missing(reason: str, environ: Mapping[str, str] = os.environ) -> NoReturn:
    """A test cannot run because of `reason`: it fails under CI, and
    elsewhere skips (pytest.ini's -rs prints the reason on one line)."""
    if everything_required(environ):
        pytest.fail(f"under CI (CI set, or MCP_WASM_HOST_REQUIRE_ALL=1 as scripts/test.sh sets it) "
                    f"every test must run, but {reason}")
    pytest.skip(reason)


def find_toolchain(var: str | None, setup: str, on_path: str | None = None,
                   environ: Mapping[str, str] = os.environ) -> str:
    """The program a test needs that the build does not provide: $var
    (which scripts/test.sh sets to what scripts/SETUP prints), else `on_path`
    found on PATH; if neither, `missing` says which setup script provides it."""
    how = f"run scripts/{setup}" + (f" and set {var} to what it prints" if var else "") + \
        " (scripts/test.sh does)"
    value = environ.get(var, "") if var else ""
    if value:
        if Path(value).exists():
            return value
        missing(f"{var}={value} does not exist: {how}", environ)
    found = shutil.which(on_path, path=environ.get("PATH", "")) if on_path else None
    if found:
        return found
    unset = f"{var} is unset" if var else ""
    not_found = f"`{on_path}` is not on PATH" if on_path else ""
    missing(" and ".join(filter(None, [unset, not_found])) + f": {how}", environ)


@pytest.fixture(scope="session")
def toolchain():
    """`find_toolchain`, for a test or fixture to call with the variable and
    setup script of what it needs."""
    return find_toolchain


@pytest.fixture(scope="session")
def installed_host() -> Path:
    """The host as a user installs it: the static binary scripts/install-host.sh
    builds with `cargo install` from the packaged crate (cheap when nothing
    changed), with the profile MCP_WASM_HOST_INSTALL_PROFILE names (release
    by default; scripts/test.sh uses `quick`). MCP_WASM_HOST_INSTALLED_BIN
    names one already installed instead (scripts/test.sh builds it beside
    the Rust tests)."""
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
