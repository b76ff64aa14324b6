"""The one decision every test that needs a toolchain or a server makes
(conftest.py's `toolchain`): under CI, or under scripts/test.sh, a missing
one fails the test naming it and its setup script; elsewhere it skips."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import everything_required, find_toolchain

SKIPPED = pytest.skip.Exception
FAILED = pytest.fail.Exception


@pytest.mark.parametrize("environ, required", [
    ({}, False),
    ({"CI": "true"}, True),
    ({"CI": "1"}, True),
    ({"CI": "false"}, False),
    ({"CI": "0"}, False),
    ({"CI": ""}, False),
    ({"MCP_WASM_HOST_REQUIRE_ALL": "1"}, True),
    ({"CI": "false", "MCP_WASM_HOST_REQUIRE_ALL": "1"}, True),
    ({"GITHUB_ACTIONS": "true"}, False),
])
def test_which_environments_require_every_test(environ: dict[str, str], required: bool):
    assert everything_required(environ) is required
    with pytest.raises(FAILED if required else SKIPPED) as raised:
        find_toolchain("MCP_WASM_HOST_TEST_TOOL", "setup-test.sh", environ=environ)
    assert "MCP_WASM_HOST_TEST_TOOL is unset" in str(raised.value)
    assert "scripts/setup-test.sh" in str(raised.value)


def test_a_toolchain_is_found_from_its_variable_else_on_path(tmp_path: Path):
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert find_toolchain("MCP_WASM_HOST_TEST_TOOL", "setup-test.sh",
                          environ={"MCP_WASM_HOST_TEST_TOOL": str(tool)}) == str(tool)
    assert find_toolchain("MCP_WASM_HOST_TEST_TOOL", "setup-test.sh", "tool",
                          environ={"PATH": str(tmp_path)}) == str(tool)


def test_a_variable_naming_a_missing_file_fails_under_ci_even_with_the_program_on_path(tmp_path: Path):
    (tmp_path / "tool").write_text("")
    (tmp_path / "tool").chmod(0o755)
    environ = {"CI": "true", "PATH": str(tmp_path), "MCP_WASM_HOST_TEST_TOOL": str(tmp_path / "gone")}
    with pytest.raises(FAILED) as raised:
        find_toolchain("MCP_WASM_HOST_TEST_TOOL", "setup-test.sh", "tool", environ=environ)
    assert f"MCP_WASM_HOST_TEST_TOOL={tmp_path / 'gone'} does not exist" in str(raised.value)
    assert "scripts/setup-test.sh" in str(raised.value)
