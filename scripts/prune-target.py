#!/usr/bin/env python3
"""Prunes a cargo target directory shared by clones of this workspace.

Every clone path and every change of a workspace crate's sources gives that
crate's artifacts a new hash in `debug/deps` (test binaries of ~700 MB, the
host library of ~400 MB) and a new `debug/incremental` directory (and so in
every other profile and target triple); cargo never
removes the old ones, so a cache reused by CI runs grows by gigabytes a run.
This keeps, for each target of the workspace's own packages (as `cargo
metadata --no-deps` lists them) and each kind of file (a library, its
metadata, an executable, an incremental directory), the KEEP newest hashes
and removes the rest. One build holds several hashes of a name at once (the
host's library, its unit tests, the binary and the binary's tests are all
`mcp_wasm_host`), so KEEP covers the live ones of two clones. Dependencies from the registry are never touched: their
hashes change only with their features or profile, and rebuilding them is
what the cache is for. A removed artifact that cargo still wanted is simply
rebuilt.

    scripts/prune-target.py TARGET_DIR [KEEP]   (KEEP: 8; PRUNE_DRY_RUN=1 only counts)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HASHED = re.compile(
    r"^(?P<lib>lib)?(?P<name>[A-Za-z0-9_]+)-(?P<hash>[0-9a-z]{13,16})(?P<ext>\..*)?$"
)


# The kinds of a dependency's targets that are built into a target directory
# (its tests, benches, examples and binaries never are).
LIBRARY_KINDS = {"lib", "rlib", "proc-macro", "dylib", "cdylib", "staticlib"}


def workspace_targets(repo: Path) -> set[str]:
    """The names (with `_` for `-`) of every target of the workspace's own
    packages, and `build_script_build`, less any name a dependency's target
    also has: an artifact's name does not say whose it is, and the bench
    `http` must not take the `http` crate's libraries with it."""
    out = subprocess.run(
        ["cargo", "metadata", "--offline", "--format-version", "1"],
        cwd=repo, check=True, capture_output=True, text=True,
    ).stdout
    metadata = json.loads(out)
    members = set(metadata["workspace_members"])
    names = {"build_script_build"}
    taken = set()
    for package in metadata["packages"]:
        for target in package["targets"]:
            name = target["name"].replace("-", "_")
            if package["id"] in members:
                names.add(name)
            elif LIBRARY_KINDS & set(target["kind"]):
                taken.add(name)
    return names - taken


def prune(directory: Path, names: set[str], keep: int, dry: bool = False) -> int:
    """Removes (unless `dry`) the entries of `directory` whose hash is not
    among the `keep` newest of their target's; returns the bytes freed."""
    if not directory.is_dir():
        return 0
    groups: dict[tuple, dict[str, list[Path]]] = defaultdict(lambda: defaultdict(list))
    for entry in directory.iterdir():
        m = HASHED.match(entry.name)
        if m and m["name"] in names:
            # `.d` files go with their artifact's hash, whatever its kind.
            kind = (m["lib"], m["ext"] if m["ext"] not in (".d", None) else "")
            groups[(m["name"], kind)][m["hash"]].append(entry)
    freed = 0
    for hashes in groups.values():
        def newest(h: str) -> float:
            return max(p.lstat().st_mtime for p in hashes[h])
        for old in sorted(hashes, key=newest, reverse=True)[keep:]:
            for path in hashes[old]:
                if path.is_dir() and not path.is_symlink():
                    freed += sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
                    if not dry:
                        shutil.rmtree(path, ignore_errors=True)
                else:
                    freed += path.lstat().st_size
                    if not dry:
                        path.unlink(missing_ok=True)
    return freed


def main() -> None:
    target = Path(sys.argv[1])
    keep = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    dry = os.environ.get("PRUNE_DRY_RUN") == "1"
    names = workspace_targets(Path(__file__).resolve().parents[1])
    freed = 0
    # Every profile directory: TARGET/PROFILE, TARGET/TRIPLE/PROFILE (the
    # static host of install-host.sh), and the target directories nested in
    # it (the build tool's `cargo install`, the projects of the tests).
    profiles = {deps.parent for depth in range(1, 5) for deps in target.glob("*/" * depth + "deps")}
    for profile in sorted(profiles):
        for sub in ("deps", "incremental"):
            freed += prune(profile / sub, names, keep, dry)
    print(f"prune-target: {'would free' if dry else 'freed'} {freed / 2**30:.1f} GiB of old workspace artifacts in {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
