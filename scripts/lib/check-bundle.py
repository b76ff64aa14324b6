#!/usr/bin/env python3
"""Checks that an unpacked MCP Bundle starts on every platform it declares.

    check-bundle.py [--objdump LLVM_OBJDUMP] [--node NODE] UNPACKED_DIR

UNPACKED_DIR is a bundle as `mcpb unpack` leaves it. For each platform in the
manifest's `compatibility.platforms`, the command is resolved as an app on
that system resolves it: the official library's getMcpConfigForManifest
(scripts/lib/mcpb-launch.mjs) with `process.platform` set to the platform.
That command must be an executable file inside the bundle, of the
platform's format (scripts/lib/check-binary.py):
  linux   the launcher, packaging/mcpb/linux-launcher.sh as committed, with
          at least one static ELF at linux-CPU/mcp-wasm-host beside it, each
          of its CPU and executable; the launcher, run for a CPU it does not
          carry, must name exactly those CPUs;
  darwin  a universal Mach-O of arm64 and x86_64 (or a thin Mach-O of one),
          loading only system libraries;
  win32   a PE for x86-64 importing only Windows' own DLLs.

Prints one line per platform on stderr, and on stdout a JSON object of each
platform's resolved command (an absolute path, e.g. to run the win32 one
under wine). Exits 1 naming the platform and what is wrong.
--objdump defaults to $MCP_WASM_HOST_OBJDUMP, else llvm-objdump-19 on PATH
(needed for darwin and win32); --node to $MCP_WASM_HOST_NODE, else what
scripts/setup-node.sh prints.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import mcpb_bundle  # noqa: E402 (the layout's helpers, beside this file)

MCPB_PACKAGE = REPO / "packaging" / "mcpb" / "node_modules" / "@anthropic-ai" / "mcpb"
LAUNCHER = REPO / "packaging" / "mcpb" / "linux-launcher.sh"
# A plugins folder to resolve with: the one required setting.
PLUGINS = "/check-bundle/plugins"
# What `uname -m` says when the launcher is asked for a CPU it cannot carry.
NO_SUCH_CPU = "check-bundle-cpu"
MACHO_CPUTYPES = {0x01000007: "x86_64-apple-darwin", 0x0100000C: "aarch64-apple-darwin"}


class Failed(Exception):
    pass


def resolve(node: str, bundle: Path, platform: str) -> dict:
    done = subprocess.run([node, str(HERE / "mcpb-launch.mjs"), str(MCPB_PACKAGE), str(bundle),
                           json.dumps({"plugins_directory": PLUGINS}), platform],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise Failed(f"mcpb-launch.mjs failed:\n{done.stdout}{done.stderr}")
    config = json.loads(done.stdout)
    if config is None:
        raise Failed("the official library resolves no command (a required setting it does not know?)")
    if PLUGINS not in config.get("args", []):
        raise Failed(f"the plugins folder does not reach the server's args: {config.get('args')}")
    return config


def check_binary(objdump: str | None, triple: str, path: Path) -> str:
    try:
        return mcpb_bundle.check_binary(triple, path, objdump)
    except mcpb_bundle.LayoutError as e:
        raise Failed(str(e)) from None


def executable(path: Path, bundle: Path) -> str:
    rel = path.relative_to(bundle).as_posix() if path.is_relative_to(bundle) else None
    if rel is None:
        raise Failed(f"the command {path} is not inside the bundle")
    if not path.is_file():
        raise Failed(f"the command {rel} is not in the bundle")
    if not os.access(path, os.X_OK):
        raise Failed(f"{rel} is not executable")
    return rel


def linux(command: Path, bundle: Path, objdump: str | None) -> str:
    if command.read_bytes() != LAUNCHER.read_bytes():
        raise Failed(f"{command} is not the launcher packaging/mcpb/linux-launcher.sh")
    found = []
    for binary in sorted(command.parent.glob("linux-*/mcp-wasm-host")):
        cpu = binary.parent.name.removeprefix("linux-")
        executable(binary, bundle)
        found.append((cpu, check_binary(objdump, f"{cpu}-unknown-linux-musl", binary)))
    if not found:
        raise Failed(f"no linux-CPU/mcp-wasm-host beside the launcher {command}")
    # The launcher's own account of what it carries, for a CPU it has not.
    with tempfile.TemporaryDirectory() as fake:
        uname = Path(fake) / "uname"
        uname.write_text(f"#!/bin/sh\necho {NO_SUCH_CPU}\n")
        uname.chmod(0o755)
        done = subprocess.run([str(command), "--version"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PATH": f"{fake}:{os.environ.get('PATH', '')}"})
    says = f"(uname -m: {NO_SUCH_CPU}); it carries: {', '.join(cpu for cpu, _ in found)}."
    if done.returncode == 0 or done.stdout or says not in done.stderr:
        raise Failed(f"the launcher, on a CPU it does not carry, exited {done.returncode} with "
                     f"stdout {done.stdout!r} and stderr {done.stderr!r} (want stderr saying {says!r})")
    return "launcher for " + "; ".join(f"{cpu}: {what}" for cpu, what in found)


def darwin(command: Path, objdump: str | None) -> str:
    head = command.read_bytes()[:8]
    if head[:4] == b"\xca\xfe\xba\xbe":
        return check_binary(objdump, mcpb_bundle.UNIVERSAL, command)
    if head[:4] != b"\xcf\xfa\xed\xfe":
        raise Failed(f"{command} is not a 64-bit Mach-O")
    (cputype,) = struct.unpack_from("<I", head, 4)
    if cputype not in MACHO_CPUTYPES:
        raise Failed(f"{command} is a Mach-O for CPU type {cputype:#x}, neither arm64 nor x86_64")
    return check_binary(objdump, MACHO_CPUTYPES[cputype], command)


def check(bundle: Path, node: str, objdump: str | None) -> dict[str, str]:
    manifest = json.loads((bundle / "manifest.json").read_text())
    platforms = manifest.get("compatibility", {}).get("platforms")
    if not platforms:
        raise Failed("the manifest declares no platform (compatibility.platforms)")
    commands = {}
    for platform in platforms:
        try:
            command = Path(resolve(node, bundle, platform)["command"])
            rel = executable(command, bundle)
            if platform == "linux":
                what = linux(command, bundle, objdump)
            elif platform == "darwin":
                what = darwin(command, objdump)
            else:
                what = check_binary(objdump, "x86_64-pc-windows-gnu", command)
        except Failed as e:
            raise Failed(f"{platform}: {e}") from None
        print(f"check-bundle: {platform}: {rel}: {what}", file=sys.stderr)
        commands[platform] = str(command)
    return commands


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--objdump", default=os.environ.get("MCP_WASM_HOST_OBJDUMP") or shutil.which("llvm-objdump-19"))
    p.add_argument("--node", default=os.environ.get("MCP_WASM_HOST_NODE"))
    p.add_argument("bundle", type=Path, metavar="UNPACKED_DIR")
    a = p.parse_args()
    node = a.node
    if not node:
        node = subprocess.run([str(REPO / "scripts" / "setup-node.sh")], check=True, stdout=subprocess.PIPE,
                              text=True).stdout.strip()
    try:
        if not (a.bundle / "manifest.json").is_file():
            raise Failed(f"{a.bundle} holds no manifest.json: give the directory `mcpb unpack` wrote")
        print(json.dumps(check(a.bundle.resolve(), node, a.objdump)))
    except (Failed, OSError, json.JSONDecodeError) as e:
        sys.exit(f"check-bundle: {e}")


if __name__ == "__main__":
    main()
