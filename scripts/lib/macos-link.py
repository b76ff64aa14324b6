#!/usr/bin/env python3
"""The linker of the macOS release builds: Zig, through cargo-zigbuild, with
every framework and library named once.

scripts/install-host.sh sets it as cargo's linker of the *-apple-darwin
triples (CARGO_TARGET_<TRIPLE>_LINKER, which cargo-zigbuild then leaves as
it is), with MCP_WASM_HOST_ZIGBUILD (cargo-zigbuild) and
MACOSX_DEPLOYMENT_TARGET in the environment:

    macos-link.py LINKER_ARGS...

The CPU is the one rustc names with `-arch` (arm64, x86_64).

rustc passes the linker each crate's native libraries, so a framework that
several crates link (CoreFoundation: core-foundation-sys,
security-framework-sys, iana-time-zone...) is named several times. Apple's
ld64 ignores the repeats; Zig's Mach-O linker writes one LC_LOAD_DYLIB per
name, and macOS 26's dyld refuses to start a binary that loads a library
twice ("duplicate linked dylib"; cargo-zigbuild #457 fixed it for `-l`, not
for `-framework`). This keeps the first `-framework NAME` (and
`-weak_framework NAME`) and the first `-lNAME` of each name, expanding a
response file (`@FILE`, one GNU-escaped argument per line) when rustc passes
one, then runs `cargo-zigbuild zig cc` as cargo-zigbuild's own wrapper does.
scripts/lib/check-binary.py checks the result.
"""

from __future__ import annotations

import os
import sys
import tempfile


def unescape(line: str) -> str:
    out, escaped = [], False
    for c in line:
        if escaped:
            out.append(c)
            escaped = False
        elif c == "\\":
            escaped = True
        else:
            out.append(c)
    return "".join(out)


def escape(arg: str) -> str:
    return "".join("\\" + c if c == "\\" or c.isspace() else c for c in arg)


def expand(args: list[str]) -> tuple[list[str], bool]:
    """`args` with each response file's arguments in its place."""
    out, had_file = [], False
    for arg in args:
        if arg.startswith("@") and os.path.isfile(arg[1:]):
            had_file = True
            with open(arg[1:], encoding="utf-8") as f:
                out += [unescape(line) for line in f.read().splitlines()]
        else:
            out.append(arg)
    return out, had_file


def dedup(args: list[str]) -> list[str]:
    """`args` with each framework and `-l` library after its first naming
    dropped."""
    out, seen, i = [], set(), 0
    while i < len(args):
        arg = args[i]
        if arg in ("-framework", "-weak_framework") and i + 1 < len(args):
            key = ("framework", args[i + 1])
            if key not in seen:
                seen.add(key)
                out += [arg, args[i + 1]]
            i += 2
            continue
        if arg.startswith("-l") and len(arg) > 2:
            key = ("l", arg[2:])
            if key in seen:
                i += 1
                continue
            seen.add(key)
        out.append(arg)
        i += 1
    return out


def main() -> int:
    args, had_file = expand(sys.argv[1:])
    named = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-arch"]
    arch = {"arm64": "aarch64", "x86_64": "x86_64"}.get(named[0] if named else "")
    if arch is None:
        print(f"macos-link: no `-arch arm64` or `-arch x86_64` among the linker's arguments", file=sys.stderr)
        return 2
    version = os.environ.get("MACOSX_DEPLOYMENT_TARGET", "11.0")
    zigbuild = os.environ["MCP_WASM_HOST_ZIGBUILD"]
    args = dedup(args)
    if had_file:
        # Passed back as a response file, as rustc did (the command line
        # was too long); cargo-zigbuild reads one whose name ends so.
        fd, path = tempfile.mkstemp(suffix="linker-arguments")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join(escape(a) + "\n" for a in args))
        args = ["@" + path]
    command = [zigbuild, "zig", "cc", "--", "-g", "-fno-sanitize=all", "-target", f"{arch}-macos.{version}-none",
               *args]
    os.execv(zigbuild, command)
    return 1


if __name__ == "__main__":
    sys.exit(main())
