"""`mcp-wasm-sdk-build`: builds a Python plugin directory into a component.

    mcp-wasm-sdk-build PLUGIN_DIR -o OUT.wasm

PLUGIN_DIR holds the module `app` (app.py, or a package `app/`) that declares
the plugin's tools with this SDK. It is built with componentize-py (installed
with this package, or found beside the running Python) against the
`plugin-full` world of the WIT this package carries
(`mcp_wasm_sdk_build/wit/`; from a checkout of the repository, its `wit/`).
Only a copy of the plugin directory and of the SDK's guest library
(`mcp_wasm_sdk`, installed beside this package) are on the guest's Python
path, so the component does not depend on what else the environment has.

A plugin whose modules import the SDK's store API (`mcp_wasm_sdk.store`)
is built against `plugin-full` plus `wasi:keyvalue/store` and `atomics` at
`0.2.0-draft2` (the vendored WIT under `wit/wasi/`), in a world this build
writes to its temporary directory; any other plugin against `plugin-full`
alone, so it imports no `wasi:keyvalue` (componentize-py imports everything
its world names). The plugin WIT's package is left as it is.

This package runs on the build machine; `mcp_wasm_sdk` runs only inside
components (it imports the bindings componentize-py generates), which is why
they are two packages of one distribution.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WORLD = "plugin-full"
GUEST_MODULE = "mcp_wasm_sdk.component"


HERE = Path(__file__).resolve().parent


def wit_dir() -> Path:
    """The WIT the package carries, else the checkout's `wit/` beside
    `sdk-python/`."""
    for candidate in (HERE / "wit", HERE.parents[1] / "wit"):
        if (candidate / "plugin.wit").is_file():
            return candidate
    raise SystemExit("mcp-wasm-sdk-build: the plugin WIT is missing from this installation of mcp-wasm-sdk")


# The wasi:keyvalue label the store API binds, its folder under `wit/wasi/`,
# and the interfaces it calls.
KEYVALUE = "keyvalue@0.2.0-draft2"
STORE_MODULE = "mcp_wasm_sdk.store"
STORE_WORLD = "plugin-full-store"
STORE_WIT = """package mcp-wasm-sdk:store;

/// `plugin-full` and the wasi:keyvalue interfaces `mcp_wasm_sdk.store` calls.
world {world} {{
    include mcp-wasm-host:plugin/plugin-full@{version};
    import wasi:keyvalue/store@0.2.0-draft2;
    import wasi:keyvalue/atomics@0.2.0-draft2;
}}
"""


def imports_store(source: str) -> bool:
    """Whether Python `source` imports the SDK's store module: `import
    mcp_wasm_sdk.store`, `from mcp_wasm_sdk.store import ...` or `from
    mcp_wasm_sdk import store`. A file that does not parse imports nothing
    (componentize-py reports it)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name == STORE_MODULE or a.name.startswith(STORE_MODULE + ".") for a in node.names):
                return True
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == STORE_MODULE or node.module.startswith(STORE_MODULE + "."):
                return True
            if node.module == "mcp_wasm_sdk" and any(a.name == "store" for a in node.names):
                return True
    return False


def uses_store(plugin: Path) -> bool:
    """Whether a module of the plugin directory imports the store API."""
    return any(
        imports_store(path.read_text(encoding="utf-8", errors="replace"))
        for path in sorted(plugin.rglob("*.py"))
        if "__pycache__" not in path.parts
    )


def world_wit(wit: Path, stage: Path, store: bool) -> tuple[Path, str]:
    """The WIT directory and world to build against: `wit` and `plugin-full`;
    with `store`, a directory written under `stage` whose world adds the
    wasi:keyvalue imports to `plugin-full` (the plugin WIT and the vendored
    keyvalue WIT as its dependencies)."""
    if not store:
        return wit, WORLD
    keyvalue = wit / "wasi" / KEYVALUE
    if not keyvalue.is_dir():
        raise SystemExit(f"mcp-wasm-sdk-build: the wasi:keyvalue WIT is missing from this installation ({keyvalue})")
    found = re.search(r"^package\s+mcp-wasm-host:plugin@([^;\s]+)\s*;", (wit / "plugin.wit").read_text(), re.M)
    if found is None:
        raise SystemExit(f"mcp-wasm-sdk-build: {wit / 'plugin.wit'} declares no mcp-wasm-host:plugin version")
    out = stage / "wit"
    (out / "deps" / "plugin").mkdir(parents=True)
    shutil.copy(wit / "plugin.wit", out / "deps" / "plugin" / "plugin.wit")
    shutil.copytree(keyvalue, out / "deps" / "keyvalue")
    (out / "store.wit").write_text(STORE_WIT.format(world=STORE_WORLD, version=found.group(1)))
    return out, STORE_WORLD


def componentize_py() -> str:
    """componentize-py beside the running Python (the same environment), else
    on PATH."""
    beside = Path(sys.executable).parent / "componentize-py"
    if beside.is_file():
        return str(beside)
    found = shutil.which("componentize-py")
    if found is None:
        raise SystemExit("mcp-wasm-sdk-build: componentize-py is not installed (pip install mcp-wasm-sdk installs it)")
    return found


def guest_env(venv: Path) -> dict[str, str]:
    """The environment componentize-py runs in: this one, less what would
    put other Python paths before the guest's, with VIRTUAL_ENV at `venv`."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["VIRTUAL_ENV"] = str(venv)
    return env


def build(plugin: Path, out: Path) -> None:
    """Builds `plugin` (a directory with the module `app`) into `out`."""
    if not (plugin / "app.py").is_file() and not (plugin / "app" / "__init__.py").is_file():
        raise SystemExit(f"mcp-wasm-sdk-build: {plugin} has no module `app` (app.py)")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mcp-wasm-sdk-build-") as stage:
        stage = Path(stage)
        app, sdk, venv = stage / "app", stage / "sdk", stage / "venv"
        shutil.copytree(plugin, app, ignore=ignore)
        shutil.copytree(HERE.parent / "mcp_wasm_sdk", sdk / "mcp_wasm_sdk", ignore=ignore)
        # componentize-py adds the site-packages of VIRTUAL_ENV to the guest's
        # path: an empty one keeps the environment's packages out.
        (venv / "lib" / "site-packages").mkdir(parents=True)
        wit, world = world_wit(wit_dir(), stage, uses_store(app))
        subprocess.run(
            [componentize_py(), "--quiet", "-d", str(wit), "-w", world, "componentize",
             "--python-path", str(app), "--python-path", str(sdk), GUEST_MODULE, "-o", str(out)],
            check=True, cwd=app, env=guest_env(venv),
        )
    with open(out, "rb") as f:
        if f.read(8) != b"\0asm\x0d\x00\x01\x00":
            raise SystemExit(f"mcp-wasm-sdk-build: {out} is not a WebAssembly component")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="mcp-wasm-sdk-build", description=__doc__.splitlines()[0])
    parser.add_argument("plugin", type=Path, help="the plugin directory (with app.py)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the component to write")
    args = parser.parse_args(argv)
    try:
        build(args.plugin, args.output)
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"mcp-wasm-sdk-build: componentize-py failed (exit {e.returncode})") from None
    print(args.output)


if __name__ == "__main__":
    main()
