"""server.json, the MCP Registry's description of this server: valid against
the registry's schema (the dated version vendored in packaging/registry, see
its README), true to the binary it describes, and at the version the
workspace, the bundle manifest and the registry entry all share.

Needs MCP_WASM_HOST_BIN (any build of the host, for `serve --help`).
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
SERVER_JSON = REPO / "server.json"
SCHEMA = REPO / "packaging" / "registry" / "server.schema.json"
MANIFEST = REPO / "packaging" / "mcpb" / "manifest.json"
IMAGE = "ghcr.io/mcp-wasm-host/mcp-wasm-host"
RELEASES = "https://github.com/mcp-wasm-host/mcp-wasm-host/releases/download"


def release_server_json():
    """scripts/lib/release-server-json.py, which writes the released server.json."""
    spec = importlib.util.spec_from_file_location("release_server_json",
                                                  REPO / "scripts" / "lib" / "release-server-json.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def server() -> dict:
    return json.loads(SERVER_JSON.read_text())


def schema() -> dict:
    return json.loads(SCHEMA.read_text())


def validator() -> jsonschema.Draft7Validator:
    s = schema()
    jsonschema.Draft7Validator.check_schema(s)
    return jsonschema.Draft7Validator(s, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)


def workspace_version() -> str:
    return tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def test_server_json_is_valid_against_the_vendored_schema():
    errors = sorted(validator().iter_errors(server()), key=str)
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def test_server_json_names_the_schema_it_is_checked_against():
    assert server()["$schema"] == schema()["$id"]


BROKEN = [
    ("snake_case field names", lambda s: s["packages"][0].update(registry_type=s["packages"][0].pop("registryType"))),
    ("a name without a namespace", lambda s: s.update(name="mcp-wasm-host")),
    ("a description over 100 characters", lambda s: s.update(description="x" * 101)),
    ("a package without transport", lambda s: s["packages"][0].pop("transport")),
    ("the version `latest`", lambda s: s["packages"][0].update(version="latest")),
]


@pytest.mark.parametrize("what, breaks", BROKEN, ids=[b[0] for b in BROKEN])
def test_the_vendored_schema_refuses_a_broken_server_json(what, breaks):
    broken = copy.deepcopy(server())
    breaks(broken)
    assert list(validator().iter_errors(broken)), f"the schema accepted {what}"


def test_every_package_type_is_one_the_released_schema_names():
    # The schema types `registryType` as any string, but lists the types the
    # registry accepts; `cargo` is only in its unreleased draft.
    known = schema()["definitions"]["Package"]["properties"]["registryType"]["examples"]
    for package in server()["packages"]:
        assert package["registryType"] in known, package


def test_the_image_package_is_the_deployed_image_at_the_workspace_version():
    (package,) = [p for p in server()["packages"] if p["registryType"] == "oci"]
    assert package["identifier"] == f"{IMAGE}:{workspace_version()}"
    deployment = (REPO / "deploy" / "deployment.yaml").read_text()
    assert f"image: {IMAGE}:{workspace_version()}" in deployment


def test_the_versions_of_cargo_the_bundle_and_the_registry_entry_agree():
    version = workspace_version()
    assert server()["version"] == version
    assert json.loads(MANIFEST.read_text())["version"] == version
    # The README names the bundle's files (every platform's, and CI's Linux
    # x86_64 one), which carry the version.
    readme = (REPO / "README.md").read_text()
    assert f"`mcp-wasm-host-{version}.mcpb`" in readme
    assert f"`mcp-wasm-host-{version}-linux-x86_64.mcpb`" in readme


def test_the_package_arguments_name_a_subcommand_and_flags_the_binary_has():
    binary = os.environ.get("MCP_WASM_HOST_BIN")
    assert binary, "set MCP_WASM_HOST_BIN to the mcp-wasm-host binary (scripts/test.sh does)"
    (package,) = [p for p in server()["packages"] if p["registryType"] == "oci"]
    args = package["packageArguments"]
    assert args[0] == {"type": "positional", "value": "serve"}
    help_text = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, check=True).stdout
    flags = set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z0-9-]+)", help_text))
    for arg in args[1:]:
        assert arg["type"] == "named" and arg["name"] in flags, arg
    # The plugins folder is mounted where --plugins points.
    mount = package["runtimeArguments"][0]["value"]
    assert f"dst={args[1]['value']}," in mount


def test_the_bundle_package_is_the_release_download_of_the_bundle_of_every_platform():
    (package,) = [p for p in server()["packages"] if p["registryType"] == "mcpb"]
    version = workspace_version()
    assert package["identifier"] == f"{RELEASES}/v{version}/mcp-wasm-host-{version}.mcpb"
    assert package["version"] == version
    assert package["transport"] == {"type": "stdio"}
    # Its hash is known only once the bundle is built: the release writes it.
    assert "fileSha256" not in package


def test_the_released_server_json_carries_the_bundles_hash_and_is_valid(tmp_path: Path):
    version = workspace_version()
    bundle = tmp_path / f"mcp-wasm-host-{version}.mcpb"
    bundle.write_bytes(b"PK\x05\x06" + bytes(18))
    out = tmp_path / "server.json"
    done = subprocess.run(["python3", str(REPO / "scripts" / "lib" / "release-server-json.py"),
                           str(SERVER_JSON), str(bundle), str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    released = json.loads(out.read_text())
    errors = sorted(validator().iter_errors(released), key=str)
    assert not errors, "\n".join(e.message for e in errors)
    (package,) = [p for p in released["packages"] if p["registryType"] == "mcpb"]
    assert package["fileSha256"] == hashlib.sha256(bundle.read_bytes()).hexdigest()
    # Everything else is the repository's.
    del package["fileSha256"]
    assert released == server()


def test_the_released_server_json_refuses_a_bundle_the_url_does_not_name(tmp_path: Path):
    other = tmp_path / "mcp-wasm-host-0.0.0-linux-x86_64.mcpb"
    other.write_bytes(b"x")
    with pytest.raises(ValueError, match="downloads mcp-wasm-host-.*but the bundle built is"):
        release_server_json().fill(server(), other)
    hashed = copy.deepcopy(server())
    next(p for p in hashed["packages"] if p["registryType"] == "mcpb")["fileSha256"] = "0" * 64
    named = tmp_path / f"mcp-wasm-host-{workspace_version()}.mcpb"
    named.write_bytes(b"x")
    with pytest.raises(ValueError, match="must not carry a fileSha256"):
        release_server_json().fill(hashed, named)
