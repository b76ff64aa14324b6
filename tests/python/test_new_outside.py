"""`mcp-wasm-host new` as a user runs it, with no clone of this repository:
for each of its six languages, in a directory outside the clone,

1. every SDK is packed the way its language publishes it
   (scripts/package-sdk.sh: the crate, the wheel, the npm tarball, a Go
   module proxy directory, the C source archive, and the build tool's
   crate);
2. the host is the one `cargo install` made from its packaged crate
   (scripts/install-host.sh, the `installed_host` fixture), and the C and Go
   build tool is `cargo install`ed from its packaged crate;
3. `new` writes the project;
4. its package manager is pointed at the packed artifact the way a user
   points it at a registry: `[patch.crates-io]` in `.cargo/config.toml`,
   PIP_FIND_LINKS, `npm install` of the tarball, GOPROXY=file://, and the C
   archive's `make install` with PKG_CONFIG_PATH;
5. the README's build and test commands run (the first `sh` block under
   `## Build` and `## Test`).

Steps 3 to 5 run in a mount namespace where the clone is an empty,
read-only tmpfs (`unshare --mount`), with a PATH of system directories and
the installed programs: a generated file or build step that reads anything
from the clone fails. Every tool comes from outside it: the system's
python3, node and npm, Debian's clang-19, the Go that scripts/setup-go.sh
keeps in ~/.cache, rustup's cargo.

Also: a project made for a newer SDK than the one installed fails its build
with a message that names both versions and says what to do.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LANGUAGES = ["rust", "python", "ts", "js", "c", "go"]
VERSION = re.search(r'^version = "(.+)"$', (REPO / "Cargo.toml").read_text(), re.M).group(1)


def run(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=1800, env=env)
    assert done.returncode == 0, f"{args}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def target_dir() -> Path:
    out = run("bash", "-c", '. scripts/lib/common.sh && cargo_target_dir')
    return Path(out.strip())


@pytest.fixture(scope="session")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("outside").resolve()
    assert not path.is_relative_to(REPO)
    return path


@pytest.fixture(scope="session")
def packed(outside: Path) -> Path:
    out = outside / "packed"
    for kind in ["rust", "tool", "python", "js", "c"]:
        run("scripts/package-sdk.sh", kind, str(out))
    run("scripts/package-sdk.sh", "go", str(out / "goproxy"))
    return out


def unpack_crate(crate: Path, into: Path) -> Path:
    """Unpacks a `.crate`, its files timed now: `cargo package` writes one
    fixed old time into every crate, which cargo's comparison of a path
    crate's file times with its last build would take for unchanged."""
    with tarfile.open(crate) as tar:
        tar.extractall(into, filter="data")
    source = into / crate.name.removesuffix(".crate")
    for file in source.rglob("*"):
        os.utime(file)
    return source


@pytest.fixture(scope="session")
def sdk_tool(packed: Path, outside: Path) -> Path:
    """mcp-wasm-sdk-tool, `cargo install`ed from its packaged crate (built in
    the workspace's target directory, so a rerun compiles only the tool)."""
    source = unpack_crate(packed / f"mcp-wasm-sdk-tool-{VERSION}.crate", outside / "crates")
    root = outside / "sdk-tool"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir() / "sdk-tool-install"))
    run("cargo", "install", "--quiet", "--locked", "--root", str(root), "--path", str(source), env=env)
    tool = root / "bin" / "mcp-wasm-sdk-tool"
    assert run(str(tool), "--version").split()[1] == VERSION
    return tool


@pytest.fixture(scope="session")
def c_sdk(packed: Path, outside: Path) -> Path:
    """The C SDK's archive, unpacked and `make install`ed into a prefix."""
    with tarfile.open(packed / f"mcp-wasm-sdk-c-{VERSION}.tar.gz") as tar:
        tar.extractall(outside / "c-src", filter="data")
    prefix = outside / "c-sdk"
    run("make", "-C", str(outside / "c-src" / f"mcp-wasm-sdk-c-{VERSION}"), "install", f"PREFIX={prefix}")
    return prefix


def program(name: str, var: str | None = None) -> Path:
    """A program outside the clone: $var, else on PATH."""
    found = os.environ.get(var) if var else None
    found = found or shutil.which(name, path="/usr/local/bin:/usr/bin:/bin:" + str(Path.home() / ".cargo/bin"))
    assert found, f"{name} not found" + (f" (set {var})" if var else "")
    path = Path(found).resolve()
    assert not path.is_relative_to(REPO), f"{name} is {path}, inside the clone"
    return path


@pytest.fixture(scope="session")
def user_env(installed_host: Path, sdk_tool: Path, outside: Path) -> dict[str, str]:
    """The environment of a user outside the clone: system programs, rustup's
    cargo, the installed host and build tool."""
    assert not installed_host.resolve().is_relative_to(REPO)
    go = Path(os.environ.get("MCP_WASM_HOST_GO") or run("scripts/setup-go.sh").strip())
    assert not go.resolve().is_relative_to(REPO)
    bin_dir = outside / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "mcp-wasm-host").unlink(missing_ok=True)
    (bin_dir / "mcp-wasm-host").symlink_to(installed_host.resolve())
    dirs = [bin_dir, sdk_tool.parent, go.parent, Path.home() / ".cargo/bin",
            Path("/usr/local/bin"), Path("/usr/bin"), Path("/bin")]
    keep = ["HOME", "USER", "LANG", "TERM", "TMPDIR", "RUSTUP_HOME", "CARGO_HOME", "PYENV_ROOT"]
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PATH"] = os.pathsep.join(str(d) for d in dirs)
    if (Path.home() / ".pyenv/shims").is_dir():
        env["PATH"] = str(Path.home() / ".pyenv/shims") + os.pathsep + env["PATH"]
    # The host's compile cache and Go's build cache, kept between runs.
    env["MCP_WASM_HOST_CACHE_DIR"] = str(target_dir() / "test-cache")
    env["GOCACHE"] = str(target_dir() / "go-cache" / "build")
    return env


def go_module_cache(packed: Path, outside: Path) -> Path:
    """A GOMODCACHE whose path names the packed SDK module's contents.

    GOCACHE is kept between runs, and Go's module index in it remembers each
    module-cache directory's file list by its path alone (a module version
    never changes on a real proxy). Here every commit packs a different
    v{VERSION}, and pytest's temporary paths recur from run to run, so a path
    without the contents' digest would compile the SDK from a list of files
    an older run saw (issue: `undefined: checkEagerly` once a file was added).
    """
    digest = hashlib.sha256()
    for zip_file in sorted((packed / "goproxy").rglob("*.zip")):
        digest.update(zip_file.read_bytes())
    return outside / f"gomod-{digest.hexdigest()[:16]}"


def hidden(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Runs `script` with bash in `cwd`, in a mount namespace where the clone
    is an empty read-only tmpfs."""
    inner = 'mount -t tmpfs -o ro,size=4k mcp-wasm-host-clone-hidden "$1" && cd "$2" && exec bash -e -c "$3"'
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", inner, "_", str(REPO), str(cwd), script],
        env=env, capture_output=True, text=True, timeout=1800,
    )


def readme_block(readme: str, heading: str) -> str:
    """The first ```sh block under `heading` (as `new` prints them)."""
    lines = readme.splitlines()
    start = lines.index(heading) + 1
    rest = lines[start:]
    begin = rest.index("```sh") + 1
    block = rest[begin:rest.index("```", begin)]
    assert not any(line.startswith("#") for line in rest[:begin]), f"no sh block under {heading}"
    return "\n".join(block)


def make_project(lang: str, parent: Path, env: dict[str, str], name: str) -> Path:
    done = hidden(f"mcp-wasm-host new --lang {lang} {name}", parent, env)
    assert done.returncode == 0, done.stderr
    project = parent / name
    for path in project.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert str(REPO) not in text, f"{path} names the clone"
    return project


def test_the_clone_is_hidden_from_the_builds(user_env: dict[str, str], outside: Path) -> None:
    done = hidden(f"test ! -e {REPO}/Cargo.toml && ! touch {REPO}/x && echo hidden", outside, user_env)
    assert done.stdout.strip() == "hidden", done.stderr


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_new_project_builds_and_passes_its_test_from_packages_outside_the_clone(
    lang: str, packed: Path, c_sdk: Path, user_env: dict[str, str], outside: Path,
) -> None:
    parent = outside / "projects" / lang
    parent.mkdir(parents=True)
    project = make_project(lang, parent, user_env, f"demo-{lang}")
    env = dict(user_env)
    point_at_packages = ""
    if lang == "rust":
        assert f'mcp-wasm-sdk = "{VERSION}"' in (project / "Cargo.toml").read_text()
        # The SDK and its macros crate, as a user's vendored copies.
        patches = "".join(
            f'{crate.name.removesuffix(f"-{VERSION}.crate")} = {{ path = "{unpack_crate(crate, outside / "crates")}" }}\n'
            for crate in sorted(packed.glob(f"mcp-wasm-sdk*-{VERSION}.crate"))
            if not crate.name.startswith("mcp-wasm-sdk-tool")
        )
        assert patches.count("path") == 2, patches
        (project / ".cargo").mkdir()
        (project / ".cargo" / "config.toml").write_text("[patch.crates-io]\n" + patches)
        env["CARGO_TARGET_DIR"] = str(target_dir() / "new-outside" / "cargo")
    elif lang == "python":
        assert f"mcp-wasm-sdk=={VERSION}" in (project / "requirements.txt").read_text()
        env["PIP_FIND_LINKS"] = str(packed)
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    elif lang in ("ts", "js"):
        assert f'"mcp-wasm-sdk": "{VERSION}"' in (project / "package.json").read_text()
        point_at_packages = f"npm install --no-audit --no-fund {packed}/mcp-wasm-sdk-{VERSION}.tgz\n"
    elif lang == "c":
        env["PKG_CONFIG_PATH"] = str(c_sdk / "lib" / "pkgconfig")
        env["MCP_WASM_HOST_C"] = str(program("clang-19", "MCP_WASM_HOST_C"))
    elif lang == "go":
        assert f"sdk-go v{VERSION}" in (project / "go.mod").read_text()
        env.update(GOPROXY=f"file://{packed}/goproxy", GOSUMDB="off", GOFLAGS="", GOTOOLCHAIN="local",
                   GOMODCACHE=str(go_module_cache(packed, outside)), GOTELEMETRY="off")
    readme = (project / "README.md").read_text()
    for what, script in [("build", point_at_packages + readme_block(readme, "## Build")),
                         ("test", readme_block(readme, "## Test"))]:
        done = hidden(script, project, env)
        assert done.returncode == 0, f"{lang}: the README's {what} failed:\n{script}\n{done.stdout}\n{done.stderr}"
    if lang == "rust":
        component = next(Path(env["CARGO_TARGET_DIR"]).glob("wasm32-wasip2/release/demo_rust.wasm"))
    else:
        component = project / "dist" / f"demo-{lang}.wasm"
    assert component.is_file()


@pytest.mark.parametrize("lang,file,says", [
    ("c", "config.sh", "made for the C SDK 9.9.9, but pkg-config finds mcp-wasm-sdk"),
    ("go", "config.sh", "made for the SDK 9.9.9, but the build tool is mcp-wasm-sdk-tool"),
    ("python", "requirements.txt", "cannot install the Python SDK this project was made for"),
])
def test_a_project_made_for_a_newer_sdk_than_the_installed_one_says_so(
    lang: str, file: str, says: str, c_sdk: Path, packed: Path, user_env: dict[str, str], outside: Path,
) -> None:
    parent = outside / "newer" / lang
    parent.mkdir(parents=True)
    project = make_project(lang, parent, user_env, "later")
    path = project / file
    path.write_text(path.read_text().replace(VERSION, "9.9.9"))
    env = dict(user_env, PKG_CONFIG_PATH=str(c_sdk / "lib" / "pkgconfig"), PIP_FIND_LINKS=str(packed),
               PIP_NO_INDEX="1")
    done = hidden("./build.sh", project, env)
    assert done.returncode != 0
    assert says in done.stderr, done.stderr
    assert "9.9.9" in done.stderr


def test_every_sdk_and_the_host_carry_one_version() -> None:
    import json
    import tomllib

    versions = {
        "Cargo.toml (host, Rust SDK, tool)": VERSION,
        "sdk-python/pyproject.toml": tomllib.loads((REPO / "sdk-python/pyproject.toml").read_text())["project"]["version"],
        "sdk-js/package.json": json.loads((REPO / "sdk-js/package.json").read_text())["version"],
        "sdk-c/VERSION": (REPO / "sdk-c/VERSION").read_text().strip(),
    }
    assert set(versions.values()) == {VERSION}, versions
