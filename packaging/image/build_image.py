#!/usr/bin/env python3
"""Writes the container image of mcp-wasm-host as an OCI image layout.

    build_image.py --binary BIN [--binary-arm64 BIN] --ca-dir DIR --version V --epoch SECONDS --out LAYOUT

With --binary alone the layout's tag VERSION names one linux/amd64 image. With
--binary-arm64 too (the aarch64-unknown-linux-musl binary, from
scripts/release.sh) it names an image index of two images, linux/amd64 and
linux/arm64, the same but for the binary: a runtime pulls its own
platform's, `skopeo copy --all` copies both.

The image is one layer on an empty base (no `FROM`: nothing is pulled):

    /usr/local/bin/mcp-wasm-host          the static (musl) binary, root-owned, 0755
    /etc/ssl/certs/ca-certificates.crt    Debian's Mozilla CA bundle (see below)
    /etc/passwd, /etc/group               the user nonroot (65532), for tools that look names up
    /etc/mcp-wasm-host/                   the working directory: a policy file mounted
                                          here as mcp-wasm-host.toml is read by default
    /var/cache/mcp-wasm-host/             the cache volume, owned by 65532 (0700), so a
                                          runtime that copies it into a new volume
                                          (podman, docker) gives the server a writable one

and its config runs `mcp-wasm-host serve` as 65532:65532 with `/plugins` as the
plugins directory and `/var/cache/mcp-wasm-host/cache` as the compile cache
(both volumes), HTTP on 8080 and the metrics and health checks on 9090.

Why a script and not a Containerfile built by buildah: the digest must be a
function of the inputs alone. Here every byte is chosen: tar entries sorted,
owners numeric, every mtime and the config's `created` set to EPOCH, gzip
without a name or time, JSON with sorted keys. buildah 1.28 (Debian 12) needs
a containers-storage driver and writes its own version into a label and the
build's history; the same bytes would then depend on the machine's buildah.

The CA bundle is the concatenation, sorted by file name, of the certificates
Debian's ca-certificates package installs under /usr/share/ca-certificates/
mozilla (not /etc/ssl/certs/ca-certificates.crt, which also holds whatever
the build machine added locally). The host's own TLS (plugins' outbound HTTP,
OAuth's JWKS) uses the compiled-in webpki roots, but fetching plugin sources
(`source = "oci://..."` or `https://...`) goes through reqwest's platform
verifier, which reads the system's certificates and fails with "No CA
certificates were loaded from the system" when there are none.

Prints the digest (`sha256:...`) of what the tag names, the manifest or the
image index, on stdout.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path

UID = GID = 65532
BINARY = "usr/local/bin/mcp-wasm-host"
CA_BUNDLE = "etc/ssl/certs/ca-certificates.crt"
POLICY_DIR = "etc/mcp-wasm-host"
PLUGINS = "/plugins"
CACHE_VOLUME = "/var/cache/mcp-wasm-host"
CACHE_DIR = CACHE_VOLUME + "/cache"
HTTP_PORT = 8080
METRICS_PORT = 9090
SERVER_NAME = "io.github.mcp-wasm-host/mcp-wasm-host"
SOURCE = "https://github.com/mcp-wasm-host/mcp-wasm-host"
LICENSES = "Apache-2.0"
REPOSITORY = "ghcr.io/mcp-wasm-host/mcp-wasm-host"


def layer_entries(binary: bytes, ca_bundle: bytes) -> list[tuple[str, int, int, int, bytes | None]]:
    """(path, mode, uid, gid, contents or None for a directory), sorted by path."""
    passwd = f"nonroot:x:{UID}:{GID}:nonroot:/nonexistent:/sbin/nologin\n".encode()
    group = f"nonroot:x:{GID}:\n".encode()
    entries = [
        ("etc", 0o755, 0, 0, None),
        ("etc/group", 0o644, 0, 0, group),
        (POLICY_DIR, 0o755, 0, 0, None),
        ("etc/passwd", 0o644, 0, 0, passwd),
        ("etc/ssl", 0o755, 0, 0, None),
        ("etc/ssl/certs", 0o755, 0, 0, None),
        (CA_BUNDLE, 0o644, 0, 0, ca_bundle),
        ("usr", 0o755, 0, 0, None),
        ("usr/local", 0o755, 0, 0, None),
        ("usr/local/bin", 0o755, 0, 0, None),
        (BINARY, 0o755, 0, 0, binary),
        ("var", 0o755, 0, 0, None),
        ("var/cache", 0o755, 0, 0, None),
        (CACHE_VOLUME.lstrip("/"), 0o700, UID, GID, None),
    ]
    return sorted(entries, key=lambda e: e[0])


def layer_tar(entries, epoch: int) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, mode, uid, gid, data in entries:
            info = tarfile.TarInfo(path)
            info.mode, info.uid, info.gid, info.mtime = mode, uid, gid, epoch
            info.uname = info.gname = ""
            if data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def gzipped(data: bytes) -> bytes:
    buf = io.BytesIO()
    # No file name and mtime 0 in the gzip header: the bytes depend on `data` only.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(data)
    return buf.getvalue()


def canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def image_config(version: str, created: str, diff_id: str, arch: str = "amd64") -> dict:
    return {
        "architecture": arch,
        "os": "linux",
        "created": created,
        "config": {
            "User": f"{UID}:{GID}",
            "Entrypoint": ["/" + BINARY],
            "Cmd": [
                "serve",
                "--http", f"0.0.0.0:{HTTP_PORT}", "--http-allow-remote",
                "--metrics-addr", f"0.0.0.0:{METRICS_PORT}", "--metrics-allow-remote",
            ],
            "Env": [
                f"MCP_WASM_HOST_PLUGINS={PLUGINS}",
                f"MCP_WASM_HOST_CACHE_DIR={CACHE_DIR}",
            ],
            "WorkingDir": "/" + POLICY_DIR,
            "ExposedPorts": {f"{HTTP_PORT}/tcp": {}, f"{METRICS_PORT}/tcp": {}},
            "Volumes": {PLUGINS: {}, CACHE_VOLUME: {}},
            "StopSignal": "SIGTERM",
            "Labels": {
                "io.modelcontextprotocol.server.name": SERVER_NAME,
                "org.opencontainers.image.title": "mcp-wasm-host",
                "org.opencontainers.image.description": "Serve MCP tools from sandboxed WebAssembly components",
                "org.opencontainers.image.version": version,
                "org.opencontainers.image.source": SOURCE,
                "org.opencontainers.image.licenses": LICENSES,
                "org.opencontainers.image.created": created,
            },
        },
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created": created, "created_by": "packaging/image/build_image.py"}],
    }


def write_blob(layout: Path, data: bytes) -> dict:
    digest = hashlib.sha256(data).hexdigest()
    (layout / "blobs" / "sha256" / digest).write_bytes(data)
    return {"digest": f"sha256:{digest}", "size": len(data)}


def ca_bundle_of(ca_dir: Path) -> bytes:
    certs = sorted(p for p in ca_dir.rglob("*.crt") if p.is_file())
    if not certs:
        raise SystemExit(f"build_image: no *.crt under {ca_dir}: install Debian's ca-certificates (scripts/setup-image.sh)")
    return b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in certs)


# The ELF e_machine of each image architecture.
MACHINES = {"amd64": 62, "arm64": 183}


def check_static(binary: bytes, arch: str = "amd64") -> None:
    """Refuses an ELF with a program interpreter (a dynamic binary): the
    image has no C library and no loader; and one of another machine."""
    if binary[:5] != b"\x7fELF\x02" or binary[5] != 1:
        raise SystemExit("build_image: not a 64-bit little-endian ELF binary")
    if int.from_bytes(binary[0x12:0x14], "little") != MACHINES[arch]:
        raise SystemExit(f"build_image: the binary for {arch} is an ELF of another machine")
    phoff = int.from_bytes(binary[0x20:0x28], "little")
    phentsize = int.from_bytes(binary[0x36:0x38], "little")
    phnum = int.from_bytes(binary[0x38:0x3A], "little")
    for i in range(phnum):
        at = phoff + i * phentsize
        if int.from_bytes(binary[at:at + 4], "little") == 3:  # PT_INTERP
            raise SystemExit("build_image: the binary is dynamically linked; build it for x86_64-unknown-linux-musl (scripts/install-host.sh)")


def image(out: Path, binary: Path, arch: str, ca_bundle: bytes, version: str, epoch: int) -> dict:
    """Writes one platform's layer, config and manifest; returns the
    manifest's descriptor."""
    check_static(binary.read_bytes(), arch)
    created = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    tar = layer_tar(layer_entries(binary.read_bytes(), ca_bundle), epoch)
    layer = write_blob(out, gzipped(tar))
    config = write_blob(out, canonical(image_config(version, created, "sha256:" + hashlib.sha256(tar).hexdigest(), arch)))
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", **config},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", **layer}],
    }
    return {
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        **write_blob(out, canonical(manifest)),
        "platform": {"architecture": arch, "os": "linux"},
    }


def build(binary: Path, ca_dir: Path, version: str, epoch: int, out: Path, arm64: Path | None = None) -> str:
    ca_bundle = ca_bundle_of(ca_dir)
    if out.exists():
        shutil.rmtree(out)
    (out / "blobs" / "sha256").mkdir(parents=True)
    top = image(out, binary, "amd64", ca_bundle, version, epoch)
    if arm64 is not None:
        both = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "manifests": [top, image(out, arm64, "arm64", ca_bundle, version, epoch)],
        }
        top = {"mediaType": "application/vnd.oci.image.index.v1+json", **write_blob(out, canonical(both))}
    index = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [{**top, "annotations": {"org.opencontainers.image.ref.name": version}}],
    }
    (out / "index.json").write_bytes(canonical(index))
    (out / "oci-layout").write_bytes(canonical({"imageLayoutVersion": "1.0.0"}))
    return top["digest"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--binary", type=Path, required=True, help="the x86_64-unknown-linux-musl binary")
    p.add_argument("--binary-arm64", type=Path, help="the aarch64-unknown-linux-musl binary: makes an image index")
    p.add_argument("--ca-dir", type=Path, required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--epoch", type=int, required=True, help="every timestamp in the image (SOURCE_DATE_EPOCH)")
    p.add_argument("--out", type=Path, required=True, help="the OCI image layout directory to (re)write")
    a = p.parse_args()
    print(build(a.binary, a.ca_dir, a.version, a.epoch, a.out, a.binary_arm64))


if __name__ == "__main__":
    os.umask(0o022)
    main()
