#!/usr/bin/env bash
# Builds this module into dist/@NAME@.wasm, a WebAssembly component, with
# mainline Go and the Go SDK of the mcp-wasm-host checkout named in config.sh:
#   1. the SDK's tool writes the Go bindings of the `plugin-full` world (and the
#      package they import); a go.work joins them, the SDK and this module;
#   2. the module is built natively and run once, so a tool that cannot be
#      served (a bad name, a type without a schema) fails the build;
#   3. Go compiles it for GOOS=wasip1 GOARCH=wasm as a reactor module;
#   4. the SDK's tool wraps that into a WASI 0.2 component.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=config.sh
source "$here/config.sh"

# A work directory at a fixed place: the generated modules' paths end up in
# the component's build information, so a temporary one would make every
# build's bytes differ (and the host compile each anew).
work="$here/.build"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

"${tool[@]}" go-bindings "$sdk/wit" "$work/gen" --world plugin-full \
    --module github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit \
    --exports github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal
export GOWORK="$work/go.work"
"$go" work init "$sdk/sdk-go" "$work/gen/bindings" "$here"
"$go" work edit -replace="go.bytecodealliance.org/pkg=$work/gen/go-pkg"

cd "$here"
CGO_ENABLED=0 "$go" build -trimpath -buildvcs=false -o "$work/check" .
"$work/check"
# -buildvcs=false: no commit stamped in, so the same sources build the same
# bytes. -checklinkname=0: the bindings allocate with runtime.sbrk through a
# go:linkname, which Go refuses by default.
GOOS=wasip1 GOARCH=wasm "$go" build -buildmode=c-shared -trimpath -buildvcs=false \
    -ldflags='-s -w -checklinkname=0' -o "$work/@NAME@.core.wasm" .
mkdir -p dist
"${tool[@]}" componentize "$work/@NAME@.core.wasm" "dist/@NAME@.wasm" --wit "$sdk/wit" --world plugin-full
