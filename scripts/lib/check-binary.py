#!/usr/bin/env python3
"""Checks that a release binary is what its target triple promises.

    check-binary.py [--objdump LLVM_OBJDUMP] TRIPLE BINARY

* *-linux-musl: a 64-bit little-endian ELF of the triple's machine with no
  interpreter (static: it runs on any Linux of that CPU);
* *-windows-gnu: a PE32+ for x86-64 that imports only Windows' own DLLs (no
  MinGW runtime DLL such as libgcc_s or libwinpthread beside it);
* *-apple-darwin: a (thin) Mach-O of the triple's CPU, read with
  llvm-objdump, that
  - loads only libraries of the system (/usr/lib, /System/Library), each
    once: macOS 26's dyld refuses to start a binary that names a library
    twice ("duplicate linked dylib");
  - runs on macOS 11 and later (its LC_BUILD_VERSION's minos);
  - if arm64, carries a code signature (ad hoc will do: Zig's linker writes
    one), or macOS on Apple silicon kills it at start;
* universal2-apple-darwin (cargo-zigbuild's name for it): a universal Mach-O
  (`lipo -create`) of exactly arm64 and x86_64, each slice checked as its
  own triple's.

Prints one line saying what it found; exits 1 naming what is wrong.
"""

from __future__ import annotations

import argparse
import re
import struct
import subprocess
import sys

ELF_MACHINES = {"x86_64": 62, "aarch64": 183}
MACHO_CPUS = {"x86_64": "X86_64", "aarch64": "ARM64"}
# lipo's and llvm-objdump's --arch names of the same CPUs.
MACHO_ARCH_NAMES = {"x86_64": "x86_64", "aarch64": "arm64"}
FAT_MAGIC = b"\xca\xfe\xba\xbe"
# The oldest macOS the release supports (scripts/install-host.sh sets
# MACOSX_DEPLOYMENT_TARGET to it).
MACOS_MIN = (11, 0)
# MinGW's own runtime DLLs: a binary that imports one does not start on a
# Windows machine without them.
MINGW_DLL = re.compile(r"^(lib.*|.*gcc.*|.*winpthread.*|.*stdc\+\+.*)\.dll$", re.IGNORECASE)


def fail(message: str) -> None:
    sys.exit(f"check-binary: {message}")


def elf(path: str, arch: str) -> str:
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
            fail(f"{path} is not a 64-bit little-endian ELF file")
        (machine,) = struct.unpack_from("<H", head, 18)
        if machine != ELF_MACHINES[arch]:
            fail(f"{path} is an ELF for machine {machine}, not {arch} ({ELF_MACHINES[arch]})")
        (phoff,) = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        for _ in range(phnum):
            (p_type,) = struct.unpack_from("<I", f.read(phentsize), 0)
            if p_type == 3:  # PT_INTERP: needs a dynamic loader
                fail(f"{path} is dynamically linked (it has an interpreter)")
    return f"static ELF for {arch}"


def objdump(tool: str, *args: str) -> str:
    return subprocess.run([tool, *args], check=True, capture_output=True, text=True).stdout


def pe(path: str, tool: str) -> str:
    with open(path, "rb") as f:
        head = f.read(4096)
    if head[:2] != b"MZ":
        fail(f"{path} is not a PE file (no MZ header)")
    (offset,) = struct.unpack_from("<I", head, 0x3C)
    if head[offset:offset + 4] != b"PE\0\0":
        fail(f"{path} is not a PE file (no PE signature)")
    (machine,) = struct.unpack_from("<H", head, offset + 4)
    if machine != 0x8664:
        fail(f"{path} is a PE for machine {machine:#x}, not x86-64 (0x8664)")
    dlls = sorted({m.lower() for m in re.findall(r"DLL Name: (\S+)", objdump(tool, "-p", path))})
    if not dlls:
        fail(f"{path}: {tool} -p lists no imported DLL")
    foreign = [d for d in dlls if MINGW_DLL.match(d)]
    if foreign:
        fail(f"{path} imports DLLs that Windows does not ship: {', '.join(foreign)}")
    return f"PE32+ for x86-64, importing {', '.join(dlls)}"


def macho_magic(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read(4)


def macho(path: str, arch: str, tool: str, *, slice_of: bool = False) -> str:
    """A thin Mach-O of `arch`, or (slice_of) the `arch` slice of a universal one."""
    if not slice_of and macho_magic(path) == FAT_MAGIC:
        fail(f"{path} is a universal Mach-O, not a thin one for {MACHO_CPUS[arch]}")
    select = [f"--arch={MACHO_ARCH_NAMES[arch]}"] if slice_of else []
    headers = objdump(tool, "--macho", "--private-header", *select, path)
    if MACHO_CPUS[arch] not in headers.split():
        fail(f"{path} is not a Mach-O for {MACHO_CPUS[arch]}:\n{headers}")
    used = objdump(tool, "--macho", "--dylibs-used", *select, path).splitlines()[1:]
    libs = [line.split(" (")[0].strip() for line in used if line.strip()]
    foreign = [lib for lib in libs if not lib.startswith(("/usr/lib/", "/System/Library/"))]
    if foreign:
        fail(f"{path} ({MACHO_CPUS[arch]}) loads libraries that are not the system's: {', '.join(foreign)}")
    twice = sorted({lib for lib in libs if libs.count(lib) > 1})
    if twice:
        fail(f"{path} ({MACHO_CPUS[arch]}) names a library more than once, which dyld refuses on macOS 26: "
             f"{', '.join(twice)}")
    commands = objdump(tool, "--macho", "--private-headers", *select, path)
    minos = re.search(r"cmd LC_BUILD_VERSION\n(?:.*\n)*?\s*minos (\d+)\.(\d+)", commands)
    if minos is None:
        fail(f"{path} ({MACHO_CPUS[arch]}) has no LC_BUILD_VERSION with a minos (the oldest macOS it runs on)")
    oldest = (int(minos.group(1)), int(minos.group(2)))
    if oldest > MACOS_MIN:
        fail(f"{path} ({MACHO_CPUS[arch]}) needs macOS {oldest[0]}.{oldest[1]}, not {MACOS_MIN[0]}.{MACOS_MIN[1]} "
             "as the release promises (is MACOSX_DEPLOYMENT_TARGET set for the build?)")
    signed = "LC_CODE_SIGNATURE" in commands.split()
    if arch == "aarch64" and not signed:
        fail(f"{path} ({MACHO_CPUS[arch]}) has no code signature: macOS on Apple silicon runs no unsigned "
             "arm64 code (sign it ad hoc: `codesign -s -`, or link with Zig, which does)")
    return (f"Mach-O for {MACHO_CPUS[arch]}, macOS {oldest[0]}.{oldest[1]}+{', signed' if signed else ''}, "
            f"loading {', '.join(libs)}")


def universal(path: str, tool: str) -> str:
    """A universal Mach-O holding exactly an arm64 and an x86_64 slice."""
    if macho_magic(path) != FAT_MAGIC:
        fail(f"{path} is not a universal Mach-O (no fat header)")
    fat = objdump(tool, "--macho", "--universal-headers", path)
    archs = sorted(re.findall(r"^architecture (\S+)$", fat, re.MULTILINE))
    want = sorted(MACHO_ARCH_NAMES.values())
    if archs != want:
        fail(f"{path} is a universal Mach-O of {', '.join(archs) or 'no architecture'}, not of {', '.join(want)}")
    slices = [macho(path, arch, tool, slice_of=True) for arch in sorted(MACHO_ARCH_NAMES)]
    return "universal (" + "; ".join(slices) + ")"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--objdump", default="llvm-objdump", help="llvm-objdump (reads PE and Mach-O)")
    p.add_argument("triple")
    p.add_argument("binary")
    a = p.parse_args()
    arch = a.triple.split("-")[0]
    if a.triple.endswith("-linux-musl"):
        found = elf(a.binary, arch)
    elif a.triple.endswith("-windows-gnu"):
        found = pe(a.binary, a.objdump)
    elif a.triple == "universal2-apple-darwin":
        found = universal(a.binary, a.objdump)
    elif a.triple.endswith("-apple-darwin"):
        found = macho(a.binary, arch, a.objdump)
    else:
        fail(f"no check for {a.triple}")
    print(f"check-binary: {a.binary}: {found}")


if __name__ == "__main__":
    main()
