#!/usr/bin/env bash
# Builds this module into dist/@NAME@.wasm, a WebAssembly component, with
# mainline Go, the Go SDK module (go.mod) and the SDK's build tool (config.sh):
#   1. the tool writes the plugin WIT it carries and the Go bindings of its
#      `plugin-full` world (and the package they import); a go.work joins
#      them with this module, whose go.mod brings the SDK;
#   2. the module is built natively and run once, so a tool that cannot be
#      served (a bad name, a type without a schema) fails the build;
#   3. Go compiles it for GOOS=wasip1 GOARCH=wasm as a reactor module;
#   4. the tool wraps that into a WASI 0.2 component.
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

"${tool[@]}" wit "$work/wit"
"${tool[@]}" go-bindings "$work/wit" "$work/gen" --world plugin-full \
    --module github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/wit \
    --exports github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/internal

cd "$here"
# The SDK module, fetched (GOPROXY) and recorded in go.sum.
GOWORK=off "$go" mod download github.com/mcp-wasm-host/mcp-wasm-host/sdk-go
export GOWORK="$work/go.work"
"$go" work init "$here" "$work/gen/bindings"
"$go" work edit -replace="go.bytecodealliance.org/pkg=$work/gen/go-pkg"

CGO_ENABLED=0 "$go" build -trimpath -buildvcs=false -o "$work/check" .
"$work/check"
# -buildvcs=false: no commit stamped in, so the same sources build the same
# bytes. -checklinkname=0: the bindings allocate with runtime.sbrk through a
# go:linkname, which Go refuses by default.
GOOS=wasip1 GOARCH=wasm "$go" build -buildmode=c-shared -trimpath -buildvcs=false \
    -ldflags='-s -w -checklinkname=0' -o "$work/@NAME@.core.wasm" .
mkdir -p dist
"${tool[@]}" componentize "$work/@NAME@.core.wasm" "dist/@NAME@.wasm" --wit "$work/wit" --world plugin-full
