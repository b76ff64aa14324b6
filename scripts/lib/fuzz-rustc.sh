#!/usr/bin/env bash
# The rustc wrapper of scripts/fuzz.sh's build: adds libFuzzer's coverage
# flags ($FUZZ_COVERAGE_FLAGS) when rustc compiles, for the target, one of
# the crates named in $FUZZ_COVERED (crate names as rustc spells them,
# space-separated). Build scripts (crate `build_script_build`) and proc
# macros (built without `--target`) are left as they are: they do not link
# libFuzzer, which defines what the coverage calls.
#   fuzz-rustc.sh RUSTC ARGS...
rustc="$1"
shift
name="" target=0 previous=""
for arg in "$@"; do
    case "$previous" in
        --crate-name) name="$arg" ;;
        --target) target=1 ;;
    esac
    previous="$arg"
done
if ((target)) && [[ " ${FUZZ_COVERED:-} " == *" $name "* ]]; then
    # shellcheck disable=SC2086 # the flags are words
    exec "$rustc" "$@" ${FUZZ_COVERAGE_FLAGS:-}
fi
exec "$rustc" "$@"
