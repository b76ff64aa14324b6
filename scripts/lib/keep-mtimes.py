#!/usr/bin/env python3
"""Gives a fresh clone's unchanged files the modification times they had in
the last clone built with the same target directory, keyed by content.

cargo decides whether a workspace crate is fresh by comparing its source
files' modification times with the time it last compiled them. A fresh
clone stamps every file with the time of the clone, so every CI run
recompiled every workspace crate (the host, the runtime, the SDK, the test
plugins) in every profile, changed or not. This keeps a manifest, per
target directory, of each tracked file's SHA-256 and the modification time
it was given; a file whose content is the manifest's gets that time back,
any other file is stamped with the present time, and the manifest then
records the clone's files as they are.

Why a stale build cannot pass for a fresh one: a file's recorded time is
the time its *current content* was first seen by this script for this
target directory. A crate compiled before then has an older fingerprint, so
cargo rebuilds it; a crate compiled since was compiled from this content,
provided every build into the target directory runs after this script (the
target directories it is used for are CI's own: .ci/run's, with the fuzz
build's inside it). Files that are not tracked by git keep their times.

    scripts/lib/keep-mtimes.py MANIFEST      (run at the repository's root)
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time


def tracked_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], check=True, capture_output=True
    ).stdout
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def digest(path: str) -> str | None:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None
    return h.hexdigest()


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    manifest_path = sys.argv[1]
    try:
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
        if not isinstance(manifest, dict):
            manifest = {}
    except (FileNotFoundError, ValueError):
        manifest = {}

    kept = changed = 0
    now = time.time_ns()
    updated: dict[str, list] = {}
    for path in tracked_files():
        if os.path.islink(path):
            continue
        sha = digest(path)
        if sha is None:
            continue
        entry = manifest.get(path)
        if (
            isinstance(entry, list)
            and len(entry) == 2
            and entry[0] == sha
            and isinstance(entry[1], int)
        ):
            os.utime(path, ns=(entry[1], entry[1]))
            kept += 1
        else:
            os.utime(path, ns=(now, now))
            changed += 1
        updated[path] = [sha, os.stat(path).st_mtime_ns]

    tmp = f"{manifest_path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(updated, f)
    os.replace(tmp, manifest_path)
    print(
        f"keep-mtimes: {kept} files unchanged since the last build here kept their times, "
        f"{changed} new or changed",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
