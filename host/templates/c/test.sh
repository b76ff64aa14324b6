#!/usr/bin/env bash
# Compiles tests/test_tool.c natively, with the C SDK's JSON reader, and runs
# it on dist/ (build it first: ./build.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=config.sh
source "$here/config.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$clang" -std=gnu17 -O1 -Wall -Wextra "${sdk_cflags[@]}" -I "$sdk_src" \
    "$here/tests/test_tool.c" "$sdk_src/json.c" "$sdk_src/result.c" \
    "$sdk_src/utf8.c" -lm -o "$work/test_tool"
"$work/test_tool" "$here/dist"
