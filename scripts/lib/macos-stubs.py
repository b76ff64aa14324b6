#!/usr/bin/env python3
"""Writes text stubs (.tbd) of the macOS system frameworks a link asks for.

    macos-stubs.py DIR LINK_LOG

Zig links macOS binaries without Apple's SDK, but has no framework: a crate
that links one (security-framework for the system's TLS roots, notify's
FSEvents) fails with `unable to find system framework "X"` and then with
`undefined symbol: _Y`. A text stub is what the SDK itself holds: a list of
the symbols a system library exports and its install name. This script reads
a failed link's output (LINK_LOG) and adds to DIR/X.framework/X.tbd the
framework it asked for and each undefined symbol, in the framework its name
belongs to (Sec* and SSL* Security, CF* CoreFoundation, FSEvent* CoreServices).
The binary then loads /System/Library/Frameworks/X.framework/Versions/A/X
at run time, as one linked with the SDK does; the symbols resolve there.

Pass -F DIR to the linker. Exits 1 when the log names a symbol no known
framework owns (it lists them), 0 when it added something, 3 when there was
nothing to add (the failure is not one of a missing framework or symbol).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# A symbol's framework, by its name (the C name with Mach-O's leading _).
OWNERS = [
    (re.compile(r"^_(k?Sec|SSL|kSSL)"), "Security"),
    (re.compile(r"^_{1,3}k?CF"), "CoreFoundation"),
    (re.compile(r"^_k?FSEvent"), "CoreServices"),
]
TARGETS = "[ x86_64-macos, arm64-macos ]"


def stub(framework: str, symbols: set[str]) -> str:
    listed = ", ".join(sorted(symbols))
    return (
        "--- !tapi-tbd\n"
        "tbd-version:     4\n"
        f"targets:         {TARGETS}\n"
        f"install-name:    '/System/Library/Frameworks/{framework}.framework/Versions/A/{framework}'\n"
        "exports:\n"
        f"  - targets:         {TARGETS}\n"
        f"    symbols:         [ {listed} ]\n"
        "...\n"
    )


def read(path: Path) -> set[str]:
    if not path.exists():
        return set()
    m = re.search(r"symbols:\s*\[(.*)\]", path.read_text())
    return {s.strip() for s in m.group(1).split(",") if s.strip()} if m else set()


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, log = Path(sys.argv[1]), Path(sys.argv[2]).read_text(errors="replace")
    wanted: dict[str, set[str]] = {}
    for framework in re.findall(r'unable to find (?:system )?framework "?([A-Za-z]+)"?', log):
        wanted.setdefault(framework, set())
    unknown = []
    for symbol in set(re.findall(r"undefined symbol: (\S+)", log)):
        owner = next((fw for pattern, fw in OWNERS if pattern.match(symbol)), None)
        if owner is None:
            unknown.append(symbol)
        else:
            wanted.setdefault(owner, set()).add(symbol)
    if unknown:
        print(f"macos-stubs: no known framework exports {', '.join(sorted(unknown))}", file=sys.stderr)
        return 1
    added = False
    for framework, symbols in wanted.items():
        path = root / f"{framework}.framework" / f"{framework}.tbd"
        have = read(path)
        if path.exists() and symbols <= have:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(stub(framework, have | symbols))
        print(f"macos-stubs: {framework}: {len(have | symbols)} symbols", file=sys.stderr)
        added = True
    return 0 if added else 3


if __name__ == "__main__":
    sys.exit(main())
