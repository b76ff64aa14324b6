#!/usr/bin/env bash
# Runs `go test` (main_test.go) with the Go that build.sh uses; build first.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
# shellcheck source=config.sh
source config.sh
"$go" test -v .
