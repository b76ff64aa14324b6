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

This package runs on the build machine; `mcp_wasm_sdk` runs only inside
components (it imports the bindings componentize-py generates), which is why
they are two packages of one distribution.
"""

from __future__ import annotations

import argparse
import os
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
        subprocess.run(
            [componentize_py(), "--quiet", "-d", str(wit_dir()), "-w", WORLD, "componentize",
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
