# shellcheck shell=bash
# The preamble every script under scripts/ (and .ci/run) shares; sourced
# first thing, as
#   # shellcheck source=lib/common.sh
#   . "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
#
# It turns on strict mode (set -euo pipefail) and sets
#   repo        the repository's root, absolute;
#   me          the calling script's name without `.sh`: the prefix of its
#               messages;
#   cache_root  what outlives a clone and a build, shared by every clone on
#               the machine: $XDG_CACHE_HOME/mcp-wasm-host, else
#               ~/.cache/mcp-wasm-host.
# and defines
#   say MESSAGE...     prints `me: MESSAGE` on stderr (stdout carries only
#                      what a script prints for its caller, such as a path);
#   die MESSAGE...     says it and exits 1;
#   sha256_of FILE     the hex SHA-256 of FILE: the key of a pinned install;
#   stamped STAMP SUM  whether the file STAMP records SUM (an install from a
#                      lockfile or requirements file whose hash is SUM is
#                      done); `echo "$SUM" > STAMP` records it;
#   cargo_target_dir   prints the target directory cargo builds this
#                      workspace in: `target/`, or wherever CARGO_TARGET_DIR
#                      or a `build.target-dir` setting puts it, as `cargo
#                      metadata` reports it.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
me="$(basename "${BASH_SOURCE[1]:-$0}" .sh)"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/mcp-wasm-host"

say() {
    echo "$me: $*" >&2
}

die() {
    say "$@"
    exit 1
}

sha256_of() {
    sha256sum "$1" | cut -d' ' -f1
}

stamped() {
    [[ -f "$1" ]] && [[ "$(cat "$1")" == "$2" ]]
}

cargo_target_dir() {
    cargo metadata --format-version 1 --no-deps --manifest-path "$repo/Cargo.toml" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
}
