"""scripts/sync-tree.py: the mirror `.ci/run` builds in.

It must end up with exactly the clone's content (so a stale mirror cannot make
a failing test pass) while leaving the mtime of every unchanged file alone (so
cargo rebuilds only what a change reaches).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "sync-tree.py"
OLD = 1_000_000_000  # 2001: older than anything the sync writes


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def sync(src: Path, dest: Path) -> None:
    subprocess.run([sys.executable, str(SCRIPT), str(src), str(dest)], check=True, capture_output=True)


def files(root: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath, name)
            rel = str(path.relative_to(root))
            if not rel.startswith(".git" + os.sep):
                out[rel] = path.read_bytes()
    return out


def test_mirror_has_the_clones_content_and_keeps_unchanged_mtimes(tmp_path: Path) -> None:
    src, dest = tmp_path / "clone", tmp_path / "mirror"
    (src / "host" / "src").mkdir(parents=True)
    (src / "host" / "src" / "lib.rs").write_text("pub fn a() {}\n")
    (src / "host" / "src" / "call.rs").write_text("pub fn b() {}\n")
    (src / "run.sh").write_text("#!/bin/sh\n")
    (src / ".gitignore").write_text("node_modules/\n")
    git(src, "init", "-q")
    git(src, "add", "-A")
    sync(src, dest)
    assert files(dest) == files(src)
    assert (dest / ".git" / "HEAD").exists()

    # Age the mirror, then change one file, drop one, add one, flip a mode.
    for path in dest.rglob("*"):
        os.utime(path, (OLD, OLD), follow_symlinks=False)
    (src / "host" / "src" / "lib.rs").write_text("pub fn a() { let _ = 1; }\n")
    (src / "host" / "src" / "call.rs").unlink()
    (src / "host" / "src" / "new.rs").write_text("pub fn c() {}\n")
    (src / "run.sh").chmod(0o755)
    # Leftovers of an earlier run in the mirror, ignored ones included.
    (dest / "node_modules" / "pkg").mkdir(parents=True)
    (dest / "node_modules" / "pkg" / "index.js").write_text("stale\n")
    (dest / "stray.txt").write_text("stale\n")
    sync(src, dest)

    assert files(dest) == files(src)
    assert not (dest / "node_modules").exists()
    assert os.access(dest / "run.sh", os.X_OK)
    assert (dest / ".gitignore").stat().st_mtime == OLD, "an unchanged file must keep its mtime"
    assert (dest / "host" / "src" / "lib.rs").stat().st_mtime > OLD, "a changed file must look new to cargo"
    assert (dest / "host" / "src" / "new.rs").stat().st_mtime > OLD


def test_refuses_nested_trees(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    run = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path), str(tmp_path / "a")], capture_output=True, text=True)
    assert run.returncode == 2
    assert "must not contain each other" in run.stderr
