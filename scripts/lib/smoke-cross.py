#!/usr/bin/env python3
"""Smoke test of a release binary of another platform, under its emulator.

    smoke-cross.py --python PY --plugins DIR
        (--runner EMULATOR [--runner-arg ARG]... --binary BIN
         | --podman PODMAN --image LAYOUT:TAG --arch ARCH)
        [--server-arg ARG]... [--expect-log TEXT]...

Serves plugin_text.wasm and plugin_hostile.wasm from DIR (cargo's output),
copied into a fresh folder, over stdio, driven by the official MCP Python
SDK client (tests/python/sdk_client.py, run with PY), under a policy that
gives hostile a read-only mount of a folder holding hello.txt and a fuel
limit of 50 million units. The server is either

* `EMULATOR [ARG...] BIN serve ...` (qemu-aarch64-static, wine64), or
* the image LAYOUT:TAG (an OCI layout, such as scripts/build-image.sh
  writes) for ARCH, pulled into a podman storage of its own and run with
  `podman run --arch ARCH -i`, the test's folder mounted at the same path
  (an arm64 image on this machine runs through the kernel's binfmt_misc
  entry for qemu-aarch64-static, scripts/setup-cross.sh).

In one session it checks:

* text's `text_stats` answers (the server compiled both plugins for its own
  CPU with Cranelift when it loaded them);
* hostile's `read_file` of /data/hello.txt returns the file's text;
* hostile's `write_file` into /data is refused (the mount is read-only);
* hostile's `spin` is stopped by the fuel limit, with the message naming it;

and, for each --expect-log, that the server's log holds TEXT.

Under wine the server's paths are Windows paths (Z:\\...); RUST_LOG=warn is
passed so that the server's log stays short. Exits with sdk_client's status,
or 1 when a check of this script fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def podman_server(a: argparse.Namespace, root: Path) -> Path:
    """Pulls the image into a storage under `root` and writes a script that
    runs it with its arguments: the server's command for sdk_client."""
    storage = root / "podman"
    base = [a.podman, "--root", str(storage / "storage"), "--runroot", str(storage / "run"),
            "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file"]
    subprocess.run([*base, "pull", "--quiet", "--arch", a.arch, f"oci:{a.image}"], check=True,
                   stdout=subprocess.DEVNULL)
    image = subprocess.run([*base, "images", "--quiet", "--no-trunc"], check=True, capture_output=True,
                           text=True).stdout.split()[0]
    arch = subprocess.run([*base, "image", "inspect", "--format", "{{.Architecture}}", image], check=True,
                          capture_output=True, text=True).stdout.strip()
    if arch != a.arch:
        sys.exit(f"smoke-cross: podman pulled a {arch} image from {a.image}, not {a.arch}")
    # The image runs as its own user: the folders must be readable by it,
    # and the compile cache its own (the server refuses one that others may
    # write to).
    root.chmod(0o755)
    user = subprocess.run([*base, "image", "inspect", "--format", "{{.Config.User}}", image], check=True,
                          capture_output=True, text=True).stdout.strip()
    uid, _, gid = user.partition(":")
    os.chown(root / "cache", int(uid), int(gid or uid))
    wrapper = root / "podman-server"
    # The ulimits: podman's defaults are above the hard limits of a machine
    # that withholds CAP_SYS_RESOURCE (tests/python/test_image.py).
    run = [*base, "run", "--rm", "-i", "--arch", a.arch, "--network", "none", "--read-only",
           "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096", "--env", "RUST_LOG=warn",
           "--volume", f"{root}:{root}", image]
    wrapper.write_text("#!/bin/sh\nexec " + " ".join(f"'{w}'" for w in run) + ' "$@"\n')
    wrapper.chmod(0o755)
    print(f"smoke-cross: podman run --arch {a.arch} {a.image} ({image[:19]})", file=sys.stderr)
    return wrapper


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--python", required=True, help="the venv's python with the MCP SDK")
    p.add_argument("--plugins", required=True, help="the folder holding plugin_text.wasm and plugin_hostile.wasm")
    p.add_argument("--runner", help="qemu-aarch64-static or wine64")
    p.add_argument("--runner-arg", action="append", default=[], help="an argument of the runner, before BIN")
    p.add_argument("--binary", help="the mcp-wasm-host binary to run")
    p.add_argument("--podman", help="podman, to run --image")
    p.add_argument("--image", help="LAYOUT:TAG, an OCI layout holding the image (index) to run")
    p.add_argument("--arch", help="the image's architecture to run (arm64, amd64)")
    p.add_argument("--server-arg", action="append", default=[], help="an extra argument of `serve`")
    p.add_argument("--expect-log", action="append", default=[], help="a text the server's log must hold")
    a = p.parse_args()
    if bool(a.podman) == bool(a.runner) or (a.runner and not a.binary) or (a.podman and not (a.image and a.arch)):
        p.error("give either --runner and --binary, or --podman, --image and --arch")
    wine = a.runner is not None and "wine" in Path(a.runner).name

    def native(path: Path) -> str:
        # Wine maps Z: to the Unix root.
        return "Z:" + str(path).replace("/", "\\") if wine else str(path)

    with tempfile.TemporaryDirectory(prefix="smoke-cross-") as tmp:
        root = Path(tmp)
        plugins = root / "plugins"
        plugins.mkdir()
        for name in ("text", "hostile"):
            shutil.copy(Path(a.plugins) / f"plugin_{name}.wasm", plugins / f"{name}.wasm")
            (plugins / f"{name}.wasm").chmod(0o644)
        data = root / "data"
        data.mkdir()
        (data / "hello.txt").write_text("hello from the host\n")
        cache = root / "cache"
        cache.mkdir(mode=0o700)
        policy = root / "policy.toml"
        policy.write_text(
            "[defaults]\nfuel = 50_000_000\ntimeout = \"120s\"\n\n"
            "[[plugins.hostile.mounts]]\n"
            f"host = {json.dumps(native(data))}\nguest = \"/data\"\n"
        )
        for path in (plugins, data, policy):
            path.chmod(0o755 if path.is_dir() else 0o644)
        (data / "hello.txt").chmod(0o644)
        calls = [
            {"name": "text_stats", "arguments": {"text": "one two two"}, "expect": "\"words\":3"},
            {"name": "read_file", "arguments": {"path": "/data/hello.txt"}, "expect": "hello from the host"},
            {"name": "write_file", "arguments": {"path": "/data/new.txt", "content": "x"}, "is_error": True,
             "expect": "read-only"},
            {"name": "spin", "arguments": {}, "is_error": True, "expect": "ran out of fuel"},
        ]
        calls_file = root / "calls.json"
        calls_file.write_text(json.dumps(calls))
        env = ["RUST_LOG=warn"]
        if wine:
            env += ["WINEDEBUG=-all", f"WINEPREFIX={os.environ.get('WINEPREFIX', root / 'wine')}"]
        if a.podman:
            server, runner = [str(podman_server(a, root))], []
        else:
            server = [a.binary]
            runner = ["--runner", a.runner, *(f"--runner-arg={r}" for r in a.runner_arg)]
            print(f"smoke-cross: {' '.join([a.runner, *a.runner_arg])} {a.binary}", file=sys.stderr)
        command = [
            a.python, str(REPO / "tests/python/sdk_client.py"), *runner,
            "--server", *server, "--plugins", native(plugins),
            f"--server-arg=--config={native(policy)}", f"--server-arg=--cache-dir={native(cache)}",
            "--server-arg=--wait-for-load", *(f"--server-arg={s}" for s in a.server_arg),
            "--call-all-file", str(calls_file), "--unknown-tool-code", "any", "--timeout", "900",
            *(f"--server-env={e}" for e in env),
        ]
        done = subprocess.run(command, check=False, stderr=subprocess.PIPE, text=True)
        sys.stderr.write(done.stderr)
        if (data / "new.txt").exists():
            print("smoke-cross: FAIL: write_file wrote into the read-only mount", file=sys.stderr)
            return 1
        for text in a.expect_log:
            if text not in done.stderr:
                print(f"smoke-cross: FAIL: the server's log does not say {text!r}", file=sys.stderr)
                return 1
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
