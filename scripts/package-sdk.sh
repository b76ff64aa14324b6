#!/usr/bin/env bash
# Packs an SDK the way its language publishes, into OUT_DIR, with the plugin
# WIT (wit/plugin.wit) copied inside; prints the artifact's path on stdout.
#
#   scripts/package-sdk.sh python OUT_DIR   the wheel mcp_wasm_sdk-VERSION-py3-none-any.whl:
#       the guest library, the `mcp-wasm-sdk-build` command (mcp_wasm_sdk_build,
#       which carries the WIT, and wit/wasi/keyvalue@0.2.0-draft2 for the
#       store API) and componentize-py as its dependency, built by
#       the project venv's pinned setuptools without build isolation (no index
#       is asked);
#   scripts/package-sdk.sh js OUT_DIR       the `npm pack` tarball mcp-wasm-sdk-VERSION.tgz:
#       src/, bin/ (`mcp-wasm-sdk build`) and wit/ (with
#       wasi/keyvalue@0.2.0-draft2 for the store API), with componentize-js and
#       esbuild as its dependencies;
#   scripts/package-sdk.sh rust OUT_DIR     the crates mcp-wasm-sdk-VERSION.crate and
#       mcp-wasm-sdk-macros-VERSION.crate (its `#[tool]` attribute, which the
#       SDK depends on by exact version), as `cargo package` makes and checks
#       them together (the SDK's wit/ is a link to the repository's, whose
#       files the crate holds); one path a line, the SDK's first;
#   scripts/package-sdk.sh tool OUT_DIR     the crate mcp-wasm-sdk-tool-VERSION.crate, the C
#       and Go SDKs' build tool (`cargo install`), which carries the WIT;
#   scripts/package-sdk.sh go OUT_DIR       a Go module proxy directory (GOPROXY=file://OUT_DIR)
#       holding the module github.com/mcp-wasm-host/mcp-wasm-host/sdk-go at
#       vVERSION, laid out as the proxy protocol serves it (list, .info,
#       .mod and .zip): the module a `sdk-go/vVERSION` tag publishes;
#   scripts/package-sdk.sh c OUT_DIR        the source archive mcp-wasm-sdk-c-VERSION.tar.gz:
#       header, sources, the vendored cJSON (vendor/cjson), WIT, Makefile
#       (`make install PREFIX=...`) and the pkg-config file it installs.
#
# VERSION is the workspace's (Cargo.toml); sdk-c/VERSION, sdk-python's
# pyproject.toml and sdk-js's package.json say the same
# (tests/python/test_new_outside.py checks).
#
# The Python, JavaScript and C packs are made from the files git tracks
# (as they are in the work tree), copied to a temporary directory: what a
# local build leaves beside the sources (sdk-python/build/, *.egg-info,
# node_modules, a stray file not added) never ships. A file new to the SDK
# is packed once it is `git add`ed.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
if [[ $# -ne 2 ]]; then
    echo "usage: $0 python|js|rust|tool|go|c OUT_DIR" >&2
    exit 2
fi
language="$1"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -1)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# The wasi:keyvalue WIT the Python and JavaScript SDKs' store APIs bind
# (their builds add it to the world of a plugin that uses the store).
store_label="keyvalue@0.2.0-draft2"

# copy_tracked DIR DEST [PATH...]: the files git tracks under the
# repository's DIR (only under its PATHs, if given) into DEST, at their
# paths relative to DIR.
copy_tracked() {
    local dir="$1" dest="$2"
    shift 2
    if ! git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
        die "$repo is not a git checkout: the SDKs are packed from the files git tracks"
    fi
    mkdir -p "$dest"
    (cd "$repo/$dir" && git ls-files -z -- "${@:-.}" | tar --null -T - -cf -) | tar -xf - -C "$dest"
}
case "$language" in
    python)
        python="$("$repo/scripts/setup-python.sh")"
        copy_tracked sdk-python "$stage"
        mkdir -p "$stage/mcp_wasm_sdk_build/wit/wasi"
        cp "$repo/wit/plugin.wit" "$stage/mcp_wasm_sdk_build/wit/"
        cp -r "$repo/wit/wasi/$store_label" "$stage/mcp_wasm_sdk_build/wit/wasi/"
        "$python" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
            --wheel-dir "$out" "$stage" >&2
        ls "$out"/mcp_wasm_sdk-*.whl
        ;;
    js)
        copy_tracked sdk-js "$stage"
        mkdir -p "$stage/wit/wasi"
        cp "$repo/wit/plugin.wit" "$stage/wit/"
        cp -r "$repo/wit/wasi/$store_label" "$stage/wit/wasi/"
        (cd "$stage" && npm pack --silent --pack-destination "$out" >&2)
        ls "$out"/mcp-wasm-sdk-*.tgz
        ;;
    rust | tool)
        # The SDK and its macros are packed and checked together; the tool
        # is checked by its `cargo install` (the crate's build), not twice.
        crates=(mcp-wasm-sdk mcp-wasm-sdk-macros)
        verify=()
        if [[ "$language" == tool ]]; then
            crates=(mcp-wasm-sdk-tool)
            verify=(--no-verify)
        fi
        (cd "$repo" && cargo package --quiet --locked "${crates[@]/#/--package=}" --allow-dirty "${verify[@]}" >&2)
        for name in "${crates[@]}"; do
            cp "$(cargo_target_dir)/package/$name-$version.crate" "$out/"
            echo "$out/$name-$version.crate"
        done
        ;;
    go)
        python3 "$repo/scripts/lib/go-proxy.py" "$repo/sdk-go" "v$version" "$out"
        ;;
    c)
        name="mcp-wasm-sdk-c-$version"
        copy_tracked sdk-c "$stage/$name" include src vendor Makefile mcp-wasm-sdk.pc.in VERSION
        mkdir -p "$stage/$name/wit"
        cp "$repo/wit/plugin.wit" "$stage/$name/wit/"
        cp "$repo/LICENSE" "$stage/$name/" 2>/dev/null || true
        if [[ "$(cat "$stage/$name/VERSION")" != "$version" ]]; then
            die "sdk-c/VERSION says $(cat "$stage/$name/VERSION"), the workspace $version"
        fi
        # Reproducible: sorted names, one owner, the time of the last commit.
        stamp="$(git -C "$repo" log -1 --format=%ct 2>/dev/null || echo 0)"
        tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$stamp" \
            -C "$stage" -cf - "$name" | gzip -n > "$out/$name.tar.gz"
        ls "$out/$name.tar.gz"
        ;;
    *)
        say "no SDK $language (python, js, rust, tool, go or c)"
        exit 2
        ;;
esac
