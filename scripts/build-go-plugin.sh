#!/usr/bin/env bash
# Builds the Go tool plugins under plugins/go/ into WASI 0.2 components with
# the project's Go SDK (sdk-go):
#   1. sdk-tool writes the Go bindings of the `plugin-full` world (wit-bindgen's
#      Go generator) and the Go package they import, which it carries in its
#      own build (the Go module proxy is never asked); a go.work joins them
#      with sdk-go and the plugins;
#   2. each plugin is built natively and run once: its init functions call
#      mcp.AddTool, whose checks (a bad name, a type without a schema) then
#      fail the build with their message instead of the plugin's load;
#   3. Go compiles it for GOOS=wasip1 GOARCH=wasm as a reactor module
#      (-buildmode=c-shared; its //go:wasmexport functions are the exports);
#   4. Wizer pre-initializes the module: it runs Go's start-up once (the
#      runtime, then every package's init, so every mcp.AddTool) and ships
#      the memory it leaves as the module's image, so an instance no longer
#      starts Go; the SDK's `mcp-wasm-host-resume` becomes the module's
#      `_initialize` (sdk-go/mcp/resume_wasip1.go: the adapter's first call,
#      and fresh random seeds). Wizer is the one componentize-js pins
#      (sdk-js/package-lock.json), installed by scripts/setup-node.sh.
#      MCP_WASM_HOST_GO_PREINIT=0 skips this step (the `languages`
#      benchmark's "before");
#   5. sdk-tool embeds the world's description into the module and wraps it
#      into a component with the preview 1 reactor adapter of the wasmtime
#      release the host runs.
#
#   scripts/build-go-plugin.sh OUT_DIR [NAME...]
#
# NAME.wasm lands in OUT_DIR; without NAMEs every plugins/go/*/ with a go.mod
# is built (today: regex, and stats, written in mcp.Register's light form). Go
# is $MCP_WASM_HOST_GO, or what scripts/setup-go.sh prints.
#
# A plugin directory with its own wit/ is a plain-WIT component, built
# without the SDK: the Go module NAME, with the world NAME in wit/. Step 1
# writes that world's bindings as the module NAME/wit, whose wit_exports
# package (which NAME's main package imports) calls the functions of the
# packages NAME/export_wit_world (the world's own exports) and
# NAME/export_<package>_<interface>; step 2 is skipped; step 4 embeds that
# world and adds the package's doc comments (step 4 is skipped: such a
# module has no resume function) as a `package-docs` section, so
# the host describes each function with them (docs/generic-components.md).
# tests/python/test_plain_wit.py builds tests/python/plain_wit_go/plaingo
# this way (MCP_WASM_HOST_PLUGIN_SRC=tests/python/plain_wit_go).
#
# Components are cached in target/go-plugins-cache (in $CARGO_TARGET_DIR if
# set, or $MCP_WASM_HOST_GO_CACHE) under a hash of everything the build
# reads: the plugin's files, the SDK, the build tool, the pinned toolchain,
# the WIT, Cargo.lock and the build scripts. A rerun with the same inputs only
# copies the file (and runs neither cargo nor go); a new build removes the
# plugin's older ones. Go's own caches live in target/go-cache. Prints the
# path of each component on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
# shellcheck source=lib/compiled-plugins.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/compiled-plugins.sh"
plugins_setup build-go-plugin go go.mod MCP_WASM_HOST_GO_CACHE "$@"
target="$(cargo_target_dir)"

# prepare: once per run, and only when something must be built: Go, the
# bindings and the go.work.
go=""
prepare() {
    [[ -z "$go" ]] || return 0
    go="${MCP_WASM_HOST_GO:-}"
    if [[ -z "$go" ]]; then
        go="$("$repo/scripts/setup-go.sh")"
    fi
    # Go reads nothing from the network or the user's settings.
    export GOCACHE="$target/go-cache/build" GOMODCACHE="$target/go-cache/mod"
    export GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOTELEMETRY=off GOENV=off GOFLAGS=
    plugins_workdir
    local modules=() n
    for n in "${names[@]}"; do
        modules+=("$src_root/$n")
        if [[ -d "$src_root/$n/wit" ]]; then
            sdk_tool go-bindings "$src_root/$n/wit" "$work/gen-$n" --world "$n" \
                --module "$n/wit" --exports "$n" >&2
            modules+=("$work/gen-$n/bindings")
        else
            sdk=1
        fi
    done
    if [[ -n "$sdk" ]]; then
        sdk_tool go-bindings "$repo/wit" "$work/gen" --world plugin-full \
            --module github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit \
            --exports github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal >&2
        modules+=("$repo/sdk-go" "$work/gen/bindings")
    fi
    # Every generator run writes the same runtime package: any copy serves.
    local pkg="$work/gen/go-pkg"
    [[ -n "$sdk" ]] || pkg="$work/gen-${names[0]}/go-pkg"
    (cd "$work" && "$go" work init "${modules[@]}" &&
        "$go" work edit -replace="go.bytecodealliance.org/pkg=$pkg")
    export GOWORK="$work/go.work"
}
# set by prepare when a plugin to build uses the SDK.
sdk=""

# build NAME OUTPUT: checks plugins/go/NAME natively, then builds it into
# the component OUTPUT.
build() {
    local name="$1" src="$src_root/$1" check
    prepare
    if [[ -d "$src/wit" ]]; then
        wasm_build "$name"
        sdk_tool componentize "$work/$name.core.wasm" "$2" --wit "$src/wit" --world "$name" \
            --docs "$src/wit" >&2
        return
    fi
    (cd "$src" && CGO_ENABLED=0 "$go" build -trimpath -o "$work/$name.check" .)
    if ! check="$("$work/$name.check" 2>&1)"; then
        echo "$prefix: $name: its tools cannot be served:" >&2
        echo "$check" | sed -n '1,/^goroutine /p' | grep -v '^goroutine ' >&2
        exit 1
    fi
    wasm_build "$name"
    preinit "$name"
    sdk_tool componentize "$work/$name.core.wasm" "$2" --wit "$repo/wit" --world plugin-full >&2
}

# preinit NAME: pre-initializes $work/NAME.core.wasm in place (step 4).
preinit() {
    [[ "$preinit" == 1 ]] || return 0
    local wizer="$repo/sdk-js/node_modules/@bytecodealliance/wizer-linux-x64/wizer"
    "$repo/scripts/setup-node.sh" >/dev/null
    if [[ ! -x "$wizer" ]]; then
        echo "$prefix: $wizer is missing after scripts/setup-node.sh" >&2
        exit 1
    fi
    # Go's start-up reads the clock and random bytes: WASI is allowed, with
    # no directories, arguments or environment.
    "$wizer" --allow-wasi --inherit-env false --init-func _initialize \
        --rename-func _initialize=mcp-wasm-host-resume \
        -o "$work/$1.pre.wasm" "$work/$1.core.wasm" >&2
    mv "$work/$1.pre.wasm" "$work/$1.core.wasm"
}
# 1: pre-initialize SDK plugins (the default); 0: do not.
preinit="${MCP_WASM_HOST_GO_PREINIT:-1}"
if [[ "$preinit" != 0 && "$preinit" != 1 ]]; then
    echo "$prefix: MCP_WASM_HOST_GO_PREINIT is 0 or 1, not $preinit" >&2
    exit 2
fi

# wasm_build NAME: compiles NAME into the reactor module $work/NAME.core.wasm.
wasm_build() {
    # -checklinkname=0: the bindings' runtime package allocates with
    # runtime.sbrk before the Go runtime is up, through a go:linkname that
    # Go refuses by default.
    # The tag mcp_wasm_preinit: the SDK derives every tool's schemas in init,
    # which then runs at build time (sdk-go/mcp/eager_preinit.go).
    local tags=()
    [[ "$preinit" == 0 || -d "$src_root/$1/wit" ]] || tags=(-tags mcp_wasm_preinit)
    (cd "$src_root/$1" && GOOS=wasip1 GOARCH=wasm "$go" build -buildmode=c-shared -trimpath \
        "${tags[@]}" -ldflags='-s -w -checklinkname=0' -o "$work/$1.core.wasm" .)
}

for name in "${names[@]}"; do
    if [[ -d "$src_root/$name/wit" ]]; then
        uses=(sdk-go/requirements.txt) # the pinned Go
    else
        uses=(sdk-go wit)
        # Wizer's version, and whether it runs.
        [[ "$preinit" == 0 ]] || uses+=(sdk-js/package-lock.json)
    fi
    plugins_build "$name" "$(plugins_hash "$src_rel/$name" "${uses[@]}" sdk-tool/src \
        sdk-tool/build.rs sdk-tool/Cargo.toml Cargo.lock scripts/build-go-plugin.sh \
        scripts/lib/compiled-plugins.sh)$preinit" build
done
