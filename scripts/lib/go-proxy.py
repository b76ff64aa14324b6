"""Writes a Go module as a module proxy serves it, for GOPROXY=file://OUT.

    python3 scripts/lib/go-proxy.py MODULE_DIR VERSION OUT

The module path is read from MODULE_DIR/go.mod; OUT gets
MODULE/@v/{list,VERSION.info,VERSION.mod,VERSION.zip}, the files `go`
fetches for `require MODULE VERSION` (https://go.dev/ref/mod#goproxy-protocol).
The zip holds every file of the module under `MODULE@VERSION/`, sorted and
with a fixed time, so the same sources give the same bytes (and go.sum line).
Prints the proxy directory.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

FIXED_TIME = (2026, 1, 1, 0, 0, 0)


def module_path(go_mod: str) -> str:
    match = re.search(r"^module\s+(\S+)", go_mod, re.M)
    if not match:
        raise SystemExit("go-proxy: go.mod names no module")
    path = match.group(1)
    if path != path.lower():
        raise SystemExit(f"go-proxy: {path} has capitals, which the proxy protocol escapes; not handled")
    return path


def files(root: Path) -> list[Path]:
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_dir() or any(part.startswith(".") for part in rel.parts):
            continue
        if path.name == "go.mod" and path.parent != root:
            raise SystemExit(f"go-proxy: {rel} is a nested module; not handled")
        out.append(path)
    return out


def main() -> None:
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    root, version, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    if not re.fullmatch(r"v\d+\.\d+\.\d+", version):
        raise SystemExit(f"go-proxy: {version} is not a vMAJOR.MINOR.PATCH version")
    go_mod = (root / "go.mod").read_text()
    module = module_path(go_mod)
    at = out / module / "@v"
    at.mkdir(parents=True, exist_ok=True)
    (at / f"{version}.mod").write_text(go_mod)
    (at / f"{version}.info").write_text(json.dumps({"Version": version, "Time": "2026-01-01T00:00:00Z"}) + "\n")
    with zipfile.ZipFile(at / f"{version}.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for path in files(root):
            info = zipfile.ZipInfo(f"{module}@{version}/{path.relative_to(root).as_posix()}", FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, path.read_bytes())
    versions = set((at / "list").read_text().split()) if (at / "list").exists() else set()
    (at / "list").write_text("".join(f"{v}\n" for v in sorted(versions | {version})))
    print(out)


if __name__ == "__main__":
    main()
