"""Points an unpacked crate at sibling crates that are not on crates.io yet.

    python3 scripts/lib/patch-local-crate.py CRATE_DIR NAME PATH [NAME PATH ...]

CRATE_DIR is a crate unpacked from `cargo package` (its Cargo.toml and the
Cargo.lock it was tested with); each NAME is a dependency it takes from
crates.io at an exact version (directly or through another NAME), and PATH
that dependency's own unpacked crate. Adds `[patch.crates-io] NAME = { path
= PATH }` to the manifest for each, and makes the lockfile's entry for each
NAME a path package (no `source`, no `checksum`), as cargo writes it for a
patch. Every other locked package stays as it is, so `cargo install
--locked --path CRATE_DIR` builds what the workspace tested.
"""

import pathlib
import re
import sys


def main() -> int:
    args = sys.argv[2:]
    if len(sys.argv) < 4 or len(args) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    crate = pathlib.Path(sys.argv[1])
    pairs = [(args[i], pathlib.Path(args[i + 1])) for i in range(0, len(args), 2)]
    manifest = crate / "Cargo.toml"
    text = manifest.read_text()
    if "[patch.crates-io" in text:
        print(f"{manifest} already has a [patch.crates-io]", file=sys.stderr)
        return 1
    for name, path in pairs:
        text += f'\n[patch.crates-io.{name}]\npath = "{path.resolve().as_posix()}"\n'
    manifest.write_text(text)
    lock = crate / "Cargo.lock"
    packages = lock.read_text().split("\n[[package]]\n")
    for name, _ in pairs:
        entry = re.compile(rf'^name = "{re.escape(name)}"\n', re.M)
        found = 0
        for i, package in enumerate(packages):
            if entry.match(package):
                found += 1
                packages[i] = re.sub(r'^(source|checksum) = "[^"]*"\n', "", package, flags=re.M)
        if found != 1:
            print(f"{lock} has {found} entries for {name}, not one", file=sys.stderr)
            return 1
    lock.write_text("\n[[package]]\n".join(packages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
