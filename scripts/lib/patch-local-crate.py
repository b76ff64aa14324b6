"""Points an unpacked crate at a sibling crate that is not on crates.io yet.

    python3 scripts/lib/patch-local-crate.py CRATE_DIR NAME PATH

CRATE_DIR is a crate unpacked from `cargo package` (its Cargo.toml and the
Cargo.lock it was tested with); NAME is a dependency it takes from crates.io
at an exact version, and PATH that dependency's own unpacked crate. Adds
`[patch.crates-io] NAME = { path = PATH }` to the manifest and makes the
lockfile's entry for NAME a path package (no `source`, no `checksum`), as
cargo writes it for a patch. Every other locked package stays as it is, so
`cargo install --locked --path CRATE_DIR` builds what the workspace tested.
"""

import pathlib
import re
import sys


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    crate, name, path = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
    manifest = crate / "Cargo.toml"
    text = manifest.read_text()
    if "[patch.crates-io]" in text:
        print(f"{manifest} already has a [patch.crates-io]", file=sys.stderr)
        return 1
    manifest.write_text(
        text + f'\n[patch.crates-io.{name}]\npath = "{path.resolve().as_posix()}"\n'
    )
    lock = crate / "Cargo.lock"
    packages = lock.read_text().split("\n[[package]]\n")
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
