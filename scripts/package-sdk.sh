#!/usr/bin/env bash
# Packs an SDK the way its language publishes, into OUT_DIR, with the plugin
# WIT (wit/plugin.wit) copied inside; prints the artifact's path on stdout.
#
#   scripts/package-sdk.sh python OUT_DIR   the wheel mcp_wasm_sdk-VERSION-py3-none-any.whl:
#       the guest library, the `mcp-wasm-sdk-build` command (mcp_wasm_sdk_build,
#       which carries the WIT) and componentize-py as its dependency, built by
#       the project venv's pinned setuptools without build isolation (no index
#       is asked);
#   scripts/package-sdk.sh js OUT_DIR       the `npm pack` tarball mcp-wasm-sdk-VERSION.tgz:
#       src/, bin/ (`mcp-wasm-sdk build`) and wit/, with componentize-js and
#       esbuild as its dependencies;
#   scripts/package-sdk.sh rust OUT_DIR     the crates mcp-wasm-sdk-VERSION.crate and
#       mcp-wasm-sdk-macros-VERSION.crate (its `#[tool]` attribute, which the
#       SDK depends on by exact version), as `cargo package` makes and checks
#       them together (the SDK's wit/ is a link to the repository's, whose
#       files the crate holds); one path a line, the SDK's first.
set -euo pipefail
if [[ $# -ne 2 ]]; then
    echo "usage: $0 python|js|rust OUT_DIR" >&2
    exit 2
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
language="$1"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
case "$language" in
    python)
        python="$("$repo/scripts/setup-python.sh")"
        (cd "$repo/sdk-python" && tar --exclude=__pycache__ --exclude='*.pyc' --exclude='*.egg-info' -cf - .) |
            tar -xf - -C "$stage"
        mkdir -p "$stage/mcp_wasm_sdk_build/wit"
        cp "$repo/wit/plugin.wit" "$stage/mcp_wasm_sdk_build/wit/"
        "$python" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
            --wheel-dir "$out" "$stage" >&2
        ls "$out"/mcp_wasm_sdk-*.whl
        ;;
    js)
        (cd "$repo/sdk-js" && tar --exclude=node_modules -cf - .) | tar -xf - -C "$stage"
        mkdir -p "$stage/wit"
        cp "$repo/wit/plugin.wit" "$stage/wit/"
        (cd "$stage" && npm pack --silent --pack-destination "$out" >&2)
        ls "$out"/mcp-wasm-sdk-*.tgz
        ;;
    rust)
        # shellcheck source=lib/target-dir.sh
        . "$repo/scripts/lib/target-dir.sh"
        (cd "$repo" && cargo package --quiet --locked -p mcp-wasm-sdk -p mcp-wasm-sdk-macros \
            --allow-dirty >&2)
        version="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n 1)"
        for name in mcp-wasm-sdk mcp-wasm-sdk-macros; do
            cp "$(cargo_target_dir)/package/$name-$version.crate" "$out/"
            echo "$out/$name-$version.crate"
        done
        ;;
    *)
        echo "package-sdk: no SDK $language (python, js or rust)" >&2
        exit 2
        ;;
esac
