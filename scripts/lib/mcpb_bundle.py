#!/usr/bin/env python3
"""The MCP Bundle's layout: where each release binary goes in the bundle, what
the staged manifest declares, and the bundle's file name. scripts/build-bundle.sh
stages a bundle with it; scripts/lib/check-bundle.py and tests/python/
test_bundle.py read the same layout.

The paths come from packaging/mcpb/manifest.json, the single source: each
platform's command is the one the official library resolves for it
(`mcp_config.platform_overrides[PLATFORM].command`, else `mcp_config.command`),
with `${__dirname}/` taken off:
  linux   server/mcp-wasm-host, the launcher (packaging/mcpb/linux-launcher.sh),
          which execs linux-CPU/mcp-wasm-host beside it for `uname -m`'s CPU;
  darwin  server/darwin/mcp-wasm-host, one universal Mach-O of both CPUs
          (`lipo -create`), or the one macOS binary given;
  win32   server/win32/mcp-wasm-host.exe.
The staged manifest keeps only the platforms whose binaries are given, in
`compatibility.platforms` and in `platform_overrides` (dropped when empty).

    mcpb_bundle.py stage --manifest M --license L --stage DIR
        [--objdump LLVM_OBJDUMP] [--lipo LLVM_LIPO] TRIPLE=BINARY...

checks each binary with check-binary.py, writes the bundle's files into DIR
and prints the bundle's file name.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
LAUNCHER = HERE.parents[1] / "packaging" / "mcpb" / "linux-launcher.sh"
DIRNAME = "${__dirname}/"
PLATFORMS = ("darwin", "win32", "linux")  # the manifest's order


@dataclass(frozen=True)
class Binary:
    triple: str
    platform: str  # process.platform
    cpu: str  # the triple's CPU, as `uname -m` says it on Linux
    token: str  # its part of a partial bundle's file name


# Every binary a bundle can carry, in the order of a partial bundle's name.
BINARIES = (
    Binary("x86_64-unknown-linux-musl", "linux", "x86_64", "linux-x86_64"),
    Binary("aarch64-unknown-linux-musl", "linux", "aarch64", "linux-aarch64"),
    Binary("x86_64-pc-windows-gnu", "win32", "x86_64", "windows-x86_64"),
    Binary("aarch64-apple-darwin", "darwin", "aarch64", "macos-aarch64"),
    Binary("x86_64-apple-darwin", "darwin", "x86_64", "macos-x86_64"),
)
BY_TRIPLE = {b.triple: b for b in BINARIES}
# The triple check-binary.py checks a universal macOS binary as.
UNIVERSAL = "universal2-apple-darwin"


class LayoutError(Exception):
    pass


def command_path(manifest: dict, platform: str) -> str:
    """The command the official library resolves for `platform`, relative to
    the bundle's root."""
    config = manifest["server"]["mcp_config"]
    command = config.get("platform_overrides", {}).get(platform, {}).get("command") or config["command"]
    if not command.startswith(DIRNAME):
        raise LayoutError(f"the manifest's {platform} command {command} is not inside the bundle ({DIRNAME}...)")
    return command[len(DIRNAME):]


def linux_binary_path(manifest: dict, cpu: str) -> str:
    """Where the launcher looks for the Linux binary of `cpu`."""
    return str(Path(command_path(manifest, "linux")).parent / f"linux-{cpu}" / "mcp-wasm-host")


def trimmed(manifest: dict, triples: list[str]) -> dict:
    """The manifest of a bundle that carries `triples`: only their platforms."""
    carried = {BY_TRIPLE[t].platform for t in triples}
    out = copy.deepcopy(manifest)
    compatibility = out.setdefault("compatibility", {})
    compatibility["platforms"] = [p for p in compatibility.get("platforms", PLATFORMS) if p in carried]
    config = out["server"]["mcp_config"]
    overrides = {p: o for p, o in config.get("platform_overrides", {}).items() if p in carried}
    if overrides:
        config["platform_overrides"] = overrides
    else:
        config.pop("platform_overrides", None)
    missing = carried - set(compatibility["platforms"])
    if missing:
        raise LayoutError(f"the manifest does not declare {', '.join(sorted(missing))}, "
                          "whose binaries were given")
    return out


def bundle_name(version: str, triples: list[str]) -> str:
    """mcp-wasm-host-VERSION.mcpb for every binary, else -VERSION-TOKENS.mcpb
    naming what it carries (e.g. -linux-x86_64)."""
    given = [b.token for b in BINARIES if b.triple in triples]
    if len(given) == len(BINARIES):
        return f"mcp-wasm-host-{version}.mcpb"
    return f"mcp-wasm-host-{version}-{'-'.join(given)}.mcpb"


def placements(manifest: dict, triples: list[str]) -> dict[str, list[str]]:
    """Each file the bundle's server part holds, relative to its root, and
    the triples it is made of (the launcher is made of none)."""
    files: dict[str, list[str]] = {command_path(manifest, "linux"): []}
    for b in BINARIES:
        if b.triple not in triples:
            continue
        path = linux_binary_path(manifest, b.cpu) if b.platform == "linux" else command_path(manifest, b.platform)
        files.setdefault(path, []).append(b.triple)
    return files


def check_binary(triple: str, path: str | Path, objdump: str | None) -> str:
    """What check-binary.py finds `path` to be, if it is what `triple` promises."""
    args = [sys.executable, str(HERE / "check-binary.py")]
    if objdump:
        args += ["--objdump", objdump]
    done = subprocess.run([*args, triple, str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise LayoutError(done.stderr.strip() or f"check-binary.py {triple} {path} failed")
    return done.stdout.strip().split(": ", 2)[-1]


def stage(manifest_path: Path, license_path: Path, stage_dir: Path, given: dict[str, str],
          objdump: str | None, lipo: str | None) -> str:
    manifest = json.loads(manifest_path.read_text())
    triples = list(given)
    for triple, path in given.items():
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise LayoutError(f"{path} ({triple}) is not an executable file")
        if BY_TRIPLE[triple].platform != "linux" and not objdump:
            raise LayoutError(f"checking the {triple} binary needs llvm-objdump: set MCP_WASM_HOST_OBJDUMP "
                              "(`. \"$(scripts/setup-cross.sh)\"` does)")
        print(f"build-bundle: {triple}: {check_binary(triple, path, objdump)}", file=sys.stderr)
    staged = trimmed(manifest, triples)
    stage_dir.mkdir(parents=True, exist_ok=True)
    (stage_dir / "manifest.json").write_text(json.dumps(staged, indent=2) + "\n")
    shutil.copyfile(license_path, stage_dir / "LICENSE")
    for rel, made_of in placements(manifest, triples).items():
        dest = stage_dir / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if not made_of:
            shutil.copyfile(LAUNCHER, dest)
        elif len(made_of) == 1:
            shutil.copyfile(given[made_of[0]], dest)
        else:
            if not lipo:
                raise LayoutError("a universal macOS binary needs llvm-lipo: set MCP_WASM_HOST_LIPO "
                                  "(`. \"$(scripts/setup-cross.sh)\"` does)")
            subprocess.run([lipo, *(given[t] for t in made_of), "-create", "-output", str(dest)],
                           check=True, stdout=sys.stderr)
            print(f"build-bundle: {rel}: {check_binary(UNIVERSAL, dest, objdump)}", file=sys.stderr)
        dest.chmod(0o755)
    return bundle_name(staged["version"], triples)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("stage", help="write a bundle's files into a directory")
    s.add_argument("--manifest", type=Path, required=True)
    s.add_argument("--license", type=Path, required=True)
    s.add_argument("--stage", type=Path, required=True)
    s.add_argument("--objdump")
    s.add_argument("--lipo")
    s.add_argument("binaries", nargs="+", metavar="TRIPLE=BINARY")
    a = p.parse_args()
    given: dict[str, str] = {}
    for item in a.binaries:
        triple, sep, path = item.partition("=")
        if not sep or triple not in BY_TRIPLE:
            sys.exit(f"build-bundle: no binary is called {triple!r}: give --TRIPLE BINARY with TRIPLE one of "
                     f"{', '.join(BY_TRIPLE)}")
        if triple in given:
            sys.exit(f"build-bundle: the {triple} binary is given twice")
        given[triple] = path
    try:
        print(stage(a.manifest, a.license, a.stage, given, a.objdump, a.lipo))
    except (LayoutError, OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"build-bundle: {e}")


if __name__ == "__main__":
    main()
