#!/usr/bin/env python3
"""Writes the server.json a release publishes, from the repository's.

    release-server-json.py SERVER_JSON BUNDLE OUT

The repository's server.json (SERVER_JSON) lists the release's packages the
MCP Registry's schema has a type for: the image index (`oci`) and the MCP
Bundle (`mcpb`, a download from the release's page). The registry requires
an `mcpb` package to carry its file's SHA-256 (`fileSha256`), which is only
known once the bundle is built; the repository's file therefore has none,
and this script writes OUT with the hash of BUNDLE. BUNDLE's file name must
be the one the package's URL names. The release's raw binaries have no
package type in the schema, so they are not listed.

Exits 1 naming what does not match.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path


def fill(server: dict, bundle: Path) -> dict:
    """`server` with its one mcpb package's fileSha256 set to `bundle`'s."""
    packages = [p for p in server.get("packages", []) if p.get("registryType") == "mcpb"]
    if len(packages) != 1:
        raise ValueError(f"server.json lists {len(packages)} mcpb packages, not one")
    (package,) = packages
    named = package["identifier"].rsplit("/", 1)[-1]
    if named != bundle.name:
        raise ValueError(f"server.json's mcpb package downloads {named}, but the bundle built is {bundle.name}")
    if "fileSha256" in package:
        raise ValueError("the repository's server.json must not carry a fileSha256: the release writes it")
    package["fileSha256"] = hashlib.sha256(bundle.read_bytes()).hexdigest()
    return server


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    source, bundle, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    try:
        server = fill(json.loads(source.read_text()), bundle)
    except (ValueError, KeyError) as e:
        print(f"release-server-json: {e}", file=sys.stderr)
        return 1
    out.write_text(json.dumps(server, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
