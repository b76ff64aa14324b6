#!/usr/bin/env python3
"""Smoke test of a release binary of another platform, under its emulator.

    smoke-cross.py --python PY --runner EMULATOR --plugins DIR --binary BIN

Serves plugin_text.wasm and plugin_hostile.wasm from DIR (cargo's output) (copied into a fresh folder) with
`EMULATOR BIN serve` over stdio, driven by the official MCP Python SDK client
(tests/python/sdk_client.py, run with PY), under a policy that gives hostile a
read-only mount of a folder holding hello.txt and a fuel limit of 50 million
units. In one session it checks:

* text's `text_stats` answers (the server compiled both plugins for its own
  CPU with Cranelift when it loaded them);
* hostile's `read_file` of /data/hello.txt returns the file's text;
* hostile's `write_file` into /data is refused (the mount is read-only);
* hostile's `spin` is stopped by the fuel limit, with the message naming it.

Under wine the server's paths are Windows paths (Z:\\...); RUST_LOG=warn is
passed so that the server's log stays short. Exits with sdk_client's status.
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--python", required=True, help="the venv's python with the MCP SDK")
    p.add_argument("--runner", required=True, help="qemu-aarch64 or wine64")
    p.add_argument("--plugins", required=True, help="the folder holding plugin_text.wasm and plugin_hostile.wasm")
    p.add_argument("--binary", required=True, help="the mcp-wasm-host binary to run")
    a = p.parse_args()
    wine = "wine" in Path(a.runner).name

    def native(path: Path) -> str:
        # Wine maps Z: to the Unix root.
        return "Z:" + str(path).replace("/", "\\") if wine else str(path)

    with tempfile.TemporaryDirectory(prefix="smoke-cross-") as tmp:
        root = Path(tmp)
        plugins = root / "plugins"
        plugins.mkdir()
        for name in ("text", "hostile"):
            shutil.copy(Path(a.plugins) / f"plugin_{name}.wasm", plugins / f"{name}.wasm")
        data = root / "data"
        data.mkdir()
        (data / "hello.txt").write_text("hello from the host\n")
        policy = root / "policy.toml"
        policy.write_text(
            "[defaults]\nfuel = 50_000_000\ntimeout = \"120s\"\n\n"
            "[[plugins.hostile.mounts]]\n"
            f"host = {json.dumps(native(data))}\nguest = \"/data\"\n"
        )
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
        command = [
            a.python, str(REPO / "tests/python/sdk_client.py"),
            "--runner", a.runner, "--server", a.binary, "--plugins", native(plugins),
            f"--server-arg=--config={native(policy)}", f"--server-arg=--cache-dir={native(root / 'cache')}",
            "--server-arg=--wait-for-load", "--call-all-file", str(calls_file),
            "--unknown-tool-code", "any", "--timeout", "600",
            *(f"--server-env={e}" for e in env),
        ]
        print(f"smoke-cross: {a.runner} {a.binary}", file=sys.stderr)
        done = subprocess.run(command, check=False)
        if (data / "new.txt").exists():
            print("smoke-cross: FAIL: write_file wrote into the read-only mount", file=sys.stderr)
            return 1
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
