# shellcheck shell=bash
# Sourced by the scripts that use what cargo built (test.sh, conformance.sh,
# serve-examples.sh, build-plugins.sh and the plugin build scripts).
#
#   cargo_target_dir
#       prints the target directory cargo builds this workspace in: `target/`,
#       or wherever CARGO_TARGET_DIR or a `build.target-dir` setting puts it,
#       as `cargo metadata` reports it.
cargo_target_dir() {
    local here
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])'
}
