#!/usr/bin/env bash
# Builds the Go tool plugins under plugins/go/ into WASI 0.2 components with
# the project's Go SDK (sdk-go):
#   1. sdk-tool writes the Go bindings of the `plugin` world (wit-bindgen's
#      Go generator) and the Go package they import, which it carries in its
#      own build (the Go module proxy is never asked); a go.work joins them
#      with sdk-go and the plugins;
#   2. each plugin is built natively and run once: its init functions call
#      mcp.AddTool, whose checks (a bad name, a type without a schema) then
#      fail the build with their message instead of the plugin's load;
#   3. Go compiles it for GOOS=wasip1 GOARCH=wasm as a reactor module
#      (-buildmode=c-shared; its //go:wasmexport functions are the exports);
#   4. sdk-tool embeds the world's description into the module and wraps it
#      into a component with the preview 1 reactor adapter of the wasmtime
#      release the host runs.
#
#   scripts/build-go-plugin.sh OUT_DIR [NAME...]
#
# NAME.wasm lands in OUT_DIR; without NAMEs every plugins/go/*/ with a go.mod
# is built (today: regex). Go is $MCP_WASM_HOST_GO, or what
# scripts/setup-go.sh prints.
#
# Components are cached in target/go-plugins-cache (in $CARGO_TARGET_DIR if
# set, or $MCP_WASM_HOST_GO_CACHE) under a hash of everything the build
# reads: the plugin's files, the SDK, the build tool, the pinned toolchain,
# the WIT, Cargo.lock and this script. A rerun with the same inputs only
# copies the file (and runs neither cargo nor go); a new build removes the
# plugin's older ones. Go's own caches live in target/go-cache. Prints the
# path of each component on stdout; progress goes to stderr.
set -euo pipefail

if [[ $# -lt 1 || "$1" == -* ]]; then
    echo "usage: $0 OUT_DIR [NAME...]" >&2
    exit 2
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out_dir="$1"
shift
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
cache="${MCP_WASM_HOST_GO_CACHE:-$target/go-plugins-cache}"
mkdir -p "$cache"

if [[ $# -gt 0 ]]; then
    names=("$@")
else
    names=()
    for dir in "$repo"/plugins/go/*/; do
        [[ -f "$dir/go.mod" ]] && names+=("$(basename "$dir")")
    done
fi
if [[ ${#names[@]} -eq 0 ]]; then
    echo "build-go-plugin: no plugins found under $repo/plugins/go" >&2
    exit 1
fi
for name in "${names[@]}"; do
    if [[ ! -f "$repo/plugins/go/$name/go.mod" ]]; then
        echo "build-go-plugin: no go.mod in $repo/plugins/go/$name" >&2
        exit 1
    fi
done

# inputs_hash NAME: one hash over the path and contents of every file the
# build of plugins/go/NAME reads.
inputs_hash() {
    (cd "$repo" && find "plugins/go/$1" sdk-go sdk-tool/src sdk-tool/build.rs \
        sdk-tool/Cargo.toml wit Cargo.lock scripts/build-go-plugin.sh \
        -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
        sha256sum | cut -c1-16
}

work=""
cleanup() { [[ -z "$work" ]] || rm -rf "$work"; }
trap cleanup EXIT

# prepare: once per run, and only when something must be built: Go, the
# tool, the bindings and the go.work.
go=""
tool=()
prepare() {
    [[ -z "$go" ]] || return 0
    go="${MCP_WASM_HOST_GO:-}"
    if [[ -z "$go" ]]; then
        go="$("$repo/scripts/setup-go.sh")"
    fi
    # Go reads nothing from the network or the user's settings.
    export GOCACHE="$target/go-cache/build" GOMODCACHE="$target/go-cache/mod"
    export GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOTELEMETRY=off GOENV=off GOFLAGS=
    work="$(mktemp -d)"
    tool=("${CARGO:-cargo}" run --quiet --locked --manifest-path "$repo/Cargo.toml"
        -p mcp-wasm-sdk-tool --)
    "${tool[@]}" go-bindings "$repo/wit" "$work/gen" \
        --module github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit \
        --exports github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal >&2
    local plugins=() n
    for n in "${names[@]}"; do
        plugins+=("$repo/plugins/go/$n")
    done
    (cd "$work" && "$go" work init "$repo/sdk-go" "$work/gen/bindings" "${plugins[@]}" &&
        "$go" work edit -replace="go.bytecodealliance.org/pkg=$work/gen/go-pkg")
    export GOWORK="$work/go.work"
}

for name in "${names[@]}"; do
    src="$repo/plugins/go/$name"
    cached="$cache/$name-$(inputs_hash "$name").wasm"
    if [[ -f "$cached" ]]; then
        echo "build-go-plugin: $name.wasm: unchanged, from $cached" >&2
    else
        prepare
        start=$(date +%s.%N)
        (cd "$src" && CGO_ENABLED=0 "$go" build -trimpath -o "$work/$name.check" .)
        if ! check="$("$work/$name.check" 2>&1)"; then
            echo "build-go-plugin: $name: its tools cannot be served:" >&2
            echo "$check" | sed -n '1,/^goroutine /p' | grep -v '^goroutine ' >&2
            exit 1
        fi
        # -checklinkname=0: the bindings' runtime package allocates with
        # runtime.sbrk before the Go runtime is up, through a go:linkname
        # that Go refuses by default.
        (cd "$src" && GOOS=wasip1 GOARCH=wasm "$go" build -buildmode=c-shared -trimpath \
            -ldflags='-s -w -checklinkname=0' -o "$work/$name.core.wasm" .)
        "${tool[@]}" componentize "$work/$name.core.wasm" "$cached.part" --wit "$repo/wit" >&2
        end=$(date +%s.%N)
        find "$cache" -maxdepth 1 -name "$name-*.wasm" -delete
        mv "$cached.part" "$cached"
        awk -v n="$name" -v a="$start" -v b="$end" -v s="$(stat -c %s "$cached")" 'BEGIN {
            printf "build-go-plugin: %s.wasm built in %.1f s (%d bytes)\n", n, b - a, s > "/dev/stderr" }'
    fi
    cp "$cached" "$out_dir/$name.wasm"
    echo "$out_dir/$name.wasm"
done
