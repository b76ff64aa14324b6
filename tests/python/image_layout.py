"""The container image as scripts/build-image.sh writes it (an OCI image
layout), read back: its manifest, config, layer and binary. The `image`
fixture in conftest.py builds it once per session."""

from __future__ import annotations

import datetime
import gzip
import io
import json
import os
import subprocess
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]
NAME = f"ghcr.io/mcp-wasm-host/mcp-wasm-host:{VERSION}"
BINARY = "usr/local/bin/mcp-wasm-host"


@dataclass
class Layout:
    path: Path

    def blob(self, digest: str) -> bytes:
        return (self.path / "blobs" / "sha256" / digest.removeprefix("sha256:")).read_bytes()

    @property
    def digest(self) -> str:
        (entry,) = json.loads((self.path / "index.json").read_text())["manifests"]
        assert entry["annotations"]["org.opencontainers.image.ref.name"] == VERSION
        return entry["digest"]

    @property
    def manifest(self) -> dict:
        return json.loads(self.blob(self.digest))

    @property
    def config(self) -> dict:
        return json.loads(self.blob(self.manifest["config"]["digest"]))

    def layer(self) -> tarfile.TarFile:
        (layer,) = self.manifest["layers"]
        return tarfile.open(fileobj=gzip.GzipFile(fileobj=io.BytesIO(self.blob(layer["digest"]))))

    def extract_binary(self, out: Path) -> Path:
        """The image's own server binary, written to `out` (executable)."""
        with self.layer() as tar:
            member = tar.extractfile(BINARY)
            assert member is not None, f"no {BINARY} in the image"
            out.write_bytes(member.read())
        out.chmod(0o755)
        return out


def epoch_of(layout: Layout) -> int:
    """The SOURCE_DATE_EPOCH the image was built with (its `created`)."""
    created = layout.config["created"].replace("Z", "+00:00")
    return int(datetime.datetime.fromisoformat(created).timestamp())


def build(out: Path, binary: Path, epoch: str | None = None) -> Layout:
    """scripts/build-image.sh OUT with `binary` as the server."""
    env = {**os.environ, "MCP_WASM_HOST_INSTALLED_BIN": str(binary)}
    if epoch is not None:
        env["SOURCE_DATE_EPOCH"] = epoch
    done = subprocess.run([str(REPO / "scripts" / "build-image.sh"), str(out)],
                          env=env, stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0, "scripts/build-image.sh failed (its output is above)"
    assert Path(done.stdout.strip()) == out
    return Layout(out)
