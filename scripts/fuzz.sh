#!/usr/bin/env bash
# Builds the fuzz targets in fuzz/ (libFuzzer's, through libfuzzer-sys) and runs each for a
# bounded time, starting from its committed seed corpus (fuzz/corpus/<target>)
# and its saved crashes (fuzz/regressions/<target>). Prints each target's
# number of executions and ends with `fuzz: N passed, N failed`; exits
# non-zero when a target crashed, leaving the crashing input under
# fuzz/artifacts/<target>/ (commit it to fuzz/regressions/<target>/ once
# fixed: `cargo test` replays that directory).
#
#   scripts/fuzz.sh [build|run]
#
# With no argument it builds, then runs; `build` only builds (scripts/test.sh
# builds beside the tests and runs afterwards, so each appears in its step
# table), `run` only runs what was built.
#
# Environment:
#   FUZZ_SECONDS    time per target (default 45)
#   FUZZ_JOBS       how many targets run at once, each on its own core
#                   (default: the number of cores, nproc; the four targets
#                   take 90 s on two)
#   FUZZ_TIMEOUT    seconds one input may take before it counts as a
#                   crash (default 10)
#   FUZZ_TARGETS    the targets to run (default: all, space-separated)
#   FUZZ_SEED       libFuzzer's random seed (default: a new one each run;
#                   the log prints it)
#   MCP_WASM_HOST_CACHE  where the fuzz build and the
#                   corpus the fuzzer grows are kept between runs on this
#                   machine (default $XDG_CACHE_HOME/mcp-wasm-host, else
#                   ~/.cache/mcp-wasm-host)
#   MCP_WASM_HOST_FUZZ_TARGET  the fuzz build's target directory (default
#                   fuzz-target in the cache above; .ci/run puts it inside
#                   its own target directory)
#
# Toolchain: stable Rust. cargo-fuzz itself is not needed: the build is
# one `cargo build` with the flags cargo-fuzz 0.13 passes for
# `--sanitizer none` (to some crates only, below), and the targets are run
# directly. RUSTC_BOOTSTRAP=1 is set, as cargo-fuzz runs on stable: libFuzzer's
# build may ask for it. It stays fixed: changing it rebuilds everything
# (build scripts such as proc-macro2's read it). No sanitizer: the host
# forbids unsafe code, so AddressSanitizer would mostly watch dependencies,
# at about twice the build and run time.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
cd "$repo"

step="${1:-all}"
case "$step" in
    all | build | run) ;;
    *) die "usage: scripts/fuzz.sh [build|run]" ;;
esac
cache="${MCP_WASM_HOST_CACHE:-$cache_root}"
seconds="${FUZZ_SECONDS:-45}"
timeout="${FUZZ_TIMEOUT:-10}"
targets="${FUZZ_TARGETS:-jsonrpc_message argument_validation result_conversion wit_value_conversion}"
build_dir="${MCP_WASM_HOST_FUZZ_TARGET:-$cache/fuzz-target}"

jobs="${FUZZ_JOBS:-$(nproc)}"
export RUSTC_BOOTSTRAP=1
triple="$(rustc -vV | sed -n 's/^host: //p')"

if [[ "$step" != run ]]; then
    # The fuzz workspace's lockfile pins what it builds, as the main one does:
    # a dependency change in the workspace must update fuzz/Cargo.lock too.
    if ! cargo metadata --locked --format-version 1 --manifest-path "$repo/fuzz/Cargo.toml" >/dev/null; then
        die "fuzz/Cargo.lock is out of date: run \`cargo update --workspace --manifest-path fuzz/Cargo.toml\` and commit it"
    fi
    echo "== fuzz: building the targets ($build_dir)" >&2
    # What cargo-fuzz 0.13's `build --sanitizer none` runs, but with its
    # coverage flags given only to the crates fuzz/Cargo.toml builds at
    # opt-level 3 (but libFuzzer's own), and to the targets: a rustc
    # wrapper (scripts/lib/fuzz-rustc.sh) adds them by crate name. The other
    # crates, most of the tree, compile as plain opt-level 0 code. The
    # profile itself (debug assertions, 16 codegen units, line tables) is
    # fuzz/Cargo.toml's. `--target` keeps RUSTFLAGS and the coverage off
    # build scripts and proc macros, as cargo-fuzz does.
    covered="$(python3 - "$repo/fuzz/Cargo.toml" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    manifest = tomllib.load(f)
names = [b["name"] for b in manifest["bin"]]
for name, settings in manifest["profile"]["release"]["package"].items():
    if settings.get("opt-level") == 3 and name not in ("libfuzzer-sys", manifest["package"]["name"]):
        names.append(name.replace("-", "_"))
print(" ".join(sorted(names)))
PY
    )"
    export FUZZ_COVERED="$covered"
    export FUZZ_COVERAGE_FLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-simplifycfg-branch-fold-threshold=0 -Cllvm-args=-sanitizer-coverage-stack-depth -Cdebuginfo=line-tables-only"
    # cargo does not see what the wrapper adds: a digest of it in RUSTFLAGS
    # rebuilds everything when the list or the flags change.
    coverage_digest="$(printf '%s\n' "$covered" "$FUZZ_COVERAGE_FLAGS" | sha256sum | cut -c1-16)"
    RUSTC_WRAPPER="$repo/scripts/lib/fuzz-rustc.sh" \
        RUSTFLAGS="--cfg fuzzing --cfg fuzz_coverage=\"$coverage_digest\"" \
        cargo build --locked --release --manifest-path "$repo/fuzz/Cargo.toml" \
        --target "$triple" --bins --target-dir "$build_dir" >&2
fi
[[ "$step" != build ]] || exit 0

# fuzz_one TARGET: runs one target for $seconds; its verdict goes to
# $verdicts/TARGET (its first line `passed` or `failed`, then what to print).
verdicts="$(mktemp -d)"
trap 'rm -rf "$verdicts"' EXIT
fuzz_one() {
    local target="$1" binary grown artifacts log corpora seed status runs
    binary="$build_dir/$triple/release/$target"
    # libFuzzer adds what it finds to the first directory only: the grown
    # corpus stays in the cache, the committed seeds are read.
    grown="$cache/fuzz-corpus/$target"
    artifacts="$repo/fuzz/artifacts/$target"
    log="$cache/fuzz-logs/$target.log"
    mkdir -p "$grown" "$artifacts" "$(dirname "$log")"
    corpora=("$grown" "fuzz/corpus/$target")
    if [[ -d "fuzz/regressions/$target" ]]; then
        corpora+=("fuzz/regressions/$target")
    fi
    seed=()
    if [[ -n "${FUZZ_SEED:-}" ]]; then
        seed=("-seed=$FUZZ_SEED")
    fi
    if [[ ! -x "$binary" ]]; then
        echo "failed" >"$verdicts/$target"
        echo "fuzz: $target: $binary is not built (scripts/fuzz.sh build)" >>"$verdicts/$target"
        return
    fi
    echo "== fuzz: $target for ${seconds}s (log: $log)" >&2
    status=0
    "$binary" "${corpora[@]}" "${seed[@]}" \
        -max_total_time="$seconds" -timeout="$timeout" \
        -print_final_stats=1 -artifact_prefix="$artifacts/" \
        >"$log" 2>&1 || status=$?
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    if [[ $status -eq 0 ]]; then
        {
            echo passed
            echo "fuzz: $target: ${runs:-?} executions in ${seconds}s, no crash"
        } >"$verdicts/$target"
    else
        {
            echo failed
            echo "fuzz: $target: CRASHED (exit $status) after ${runs:-?} executions; the end of its log:"
            tail -n 40 "$log"
            echo "fuzz: the crashing input is in $artifacts/; once fixed, commit it to fuzz/regressions/$target/"
        } >"$verdicts/$target"
    fi
}

# Each target is one libFuzzer process on one core: $jobs of them at once.
running=0
for target in $targets; do
    if ((running >= jobs)); then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_one "$target" &
    running=$((running + 1))
done
wait

passed=0
failed=0
for target in $targets; do
    if [[ "$(head -n 1 "$verdicts/$target" 2>/dev/null)" == passed ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    tail -n +2 "$verdicts/$target" 2>/dev/null || echo "fuzz: $target: no verdict"
done

echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
