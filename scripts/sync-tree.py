#!/usr/bin/env python3
"""Mirrors a checkout into a fixed directory, rewriting only the files whose content changed.

Usage: sync-tree.py SRC DEST

Why: CI runs in a fresh clone at a new path each time, so every file is new
to cargo's mtime fingerprints and the workspace's own crates (runtime, host,
store, SDKs, fuzz harness) all recompile, even after a one-line change.
`.ci/run` mirrors the clone into one directory kept between runs and builds
there. A file whose bytes, kind and executable bit are unchanged keeps the
mtime it had, so cargo rebuilds exactly what the change reaches; a changed
or new file is written anew (now as its mtime), so cargo sees it.

What DEST ends up with is what the clone has, and nothing else: the files
git lists (tracked, and untracked but not ignored), `.git` itself, and no
leftover of an earlier run (build outputs, `node_modules`, a deleted
source): everything else in DEST is removed, ignored files included. A stale
mirror therefore cannot make a failing test pass: its content is the
clone's, and only the mtimes of unchanged files differ.

Outside a git checkout, every file under SRC is mirrored.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path


def listed(src: Path) -> list[str]:
    """The relative paths to mirror: git's view of the checkout plus `.git`."""
    paths: list[str] = []
    if (src / ".git").exists():
        out = subprocess.run(
            ["git", "-C", str(src), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True,
            capture_output=True,
        ).stdout
        paths = [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]
        roots = [src / ".git"]
    else:
        roots = [src]
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                paths.append(os.path.relpath(os.path.join(dirpath, name), src))
    # A path git lists may be gone from the work tree (deleted, not staged).
    return sorted({p for p in paths if os.path.lexists(src / p)})


def same(a: Path, b: Path) -> bool:
    """Whether b is already a copy of a: kind, target or bytes, executable bit."""
    try:
        sa, sb = os.lstat(a), os.lstat(b)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(sa.st_mode) or stat.S_ISLNK(sb.st_mode):
        return stat.S_ISLNK(sa.st_mode) and stat.S_ISLNK(sb.st_mode) and os.readlink(a) == os.readlink(b)
    if not (stat.S_ISREG(sa.st_mode) and stat.S_ISREG(sb.st_mode)):
        return False
    if sa.st_size != sb.st_size or (sa.st_mode & 0o111) != (sb.st_mode & 0o111):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            ca, cb = fa.read(1 << 20), fb.read(1 << 20)
            if ca != cb:
                return False
            if not ca:
                return True


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    src, dest = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    if src == dest or dest in src.parents or src in dest.parents:
        print(f"sync-tree: {src} and {dest} must not contain each other", file=sys.stderr)
        return 2
    wanted = listed(src)
    keep = set(wanted)
    keep_dirs = {str(Path(p).parent) for p in wanted}
    keep_dirs |= {str(parent) for p in keep_dirs for parent in Path(p).parents}
    dest.mkdir(parents=True, exist_ok=True)

    removed = 0
    for dirpath, dirs, files in os.walk(dest, topdown=True):
        rel_dir = os.path.relpath(dirpath, dest)
        for name in list(dirs):
            rel = os.path.normpath(os.path.join(rel_dir, name))
            full = Path(dirpath, name)
            if full.is_symlink():
                dirs.remove(name)
                if rel not in keep:
                    full.unlink()
                    removed += 1
            elif rel not in keep_dirs:
                dirs.remove(name)
                shutil.rmtree(full)
                removed += 1
        for name in files:
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel not in keep:
                Path(dirpath, name).unlink()
                removed += 1

    written = 0
    for rel in wanted:
        a, b = src / rel, dest / rel
        if same(a, b):
            continue
        if os.path.lexists(b) or b.is_dir():
            remove(b)
        b.parent.mkdir(parents=True, exist_ok=True)
        if a.is_symlink():
            os.symlink(os.readlink(a), b)
        else:
            shutil.copyfile(a, b)  # a new mtime: cargo sees the change
            os.chmod(b, stat.S_IMODE(os.stat(a).st_mode))
        written += 1
    print(f"sync-tree: {dest}: {len(wanted)} files, {written} written, {removed} removed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
