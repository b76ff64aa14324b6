#!/usr/bin/env bash
# Builds every plugin under plugins/examples and plugins/testing for
# wasm32-wasip2 (through the test-artifacts crate's build script) and prints
# the directories that hold the components, examples first.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
cd "$repo"
cargo build -p test-artifacts >&2
target="$(cargo_target_dir)"
echo "$target/plugins/examples"
echo "$target/plugins/testing"
