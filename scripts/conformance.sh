#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in tests/conformance/package.json) against mcp-wasm-host serving the
# `conformance` test plugin (plugins/testing/conformance) over Streamable
# HTTP on 127.0.0.1.
#
#   1. installs the suite and its Node 22 (scripts/setup-node.sh, npm ci);
#   2. builds the host and the guest plugins (cargo build --locked), unless
#      MCP_WASM_HOST_BUILT says scripts/test.sh's cargo test just did;
#   3. starts `mcp-wasm-host serve --http 127.0.0.1:0` on a temporary
#      plugins directory holding only conformance.wasm (watched, so that the
#      `test_trigger_tool_change` tool can change the tool list), with the
#      policy tests/conformance/mcp-wasm-host.toml copied next to it, and
#      waits for its URL and for the plugin to load;
#   4. runs the suite three times against it, each with the baseline
#      tests/conformance/expected-failures.yml (features the host does not
#      offer yet, each with the issue that owns it): `--suite all`, then
#      `--requirements 2025-11-25` and `--requirements 2026-07-28`, exactly
#      the scenarios each revision requires, at that revision's wire (the
#      suite also validates every message against the revision's schema);
#      exits non-zero if any run fails.
#
# After each run, a table of scenarios and a closing line `conformance
# (RUN): N passed, N failed, N skipped` (tests/conformance/summarize.mjs;
# skipped = failed as the baseline expects; a requirements run also counts
# the scenarios it runs but does not score). Results (one checks.json per
# scenario, output.txt, summary.txt) go to $CONFORMANCE_OUT/RUN, by default
# target/conformance/RUN. On failure the server's log is printed. Extra
# arguments go to the suite instead, in one run `custom`, without the
# baseline: e.g. `scripts/conformance.sh --scenario ping`.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

cd "$repo"

conf_dir="$repo/tests/conformance"
policy="$conf_dir/mcp-wasm-host.toml"
baseline="$conf_dir/expected-failures.yml"
suite_js="$conf_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
target="$(cargo_target_dir)"
out="${CONFORMANCE_OUT:-$target/conformance}"
host_bin="$target/debug/mcp-wasm-host"
plugin="$target/plugins/testing/conformance.wasm"
fnv_plugin="$target/plugins/testing/fnv.wasm"
# Seconds to wait for the server's URL and for the plugin to load, and for
# the whole suite (it runs ~30 scenarios of a few seconds at most each).
start_timeout="${CONFORMANCE_START_TIMEOUT:-120}"
suite_timeout="${CONFORMANCE_SUITE_TIMEOUT:-900}"


node="$(scripts/setup-node.sh)"
export PATH="$(dirname "$node"):$PATH"
say "suite $("$node" -p "require('$conf_dir/node_modules/@modelcontextprotocol/conformance/package.json').version") on node $("$node" --version)"

if [[ -n "${MCP_WASM_HOST_BUILT:-}" && -x "$host_bin" ]]; then
    say "using the host and plugins scripts/test.sh's cargo test built"
else
    say "building mcp-wasm-host and the guest plugins"
    cargo build --locked -p mcp-wasm-host >&2
    cargo build --locked -p test-artifacts >&2
fi
[[ -f "$plugin" ]] || { say "$plugin was not built"; exit 1; }
if ! "$host_bin" serve --help | grep -q -- '--http'; then
    die "$host_bin has no \`serve --http\`: the suite tests Streamable HTTP only"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/mcp-conformance.XXXXXX")"
log="$work/server.log"
server_pid=""
show_log() {
    [[ -f "$log" ]] || return 0
    say "server log, warnings and errors ($log):"
    sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E ' (WARN|ERROR) ' | tail -n 100 >&2 || true
    say "server log, last 60 lines:"
    sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -n 60 >&2 || true
}
cleanup() {
    local status=$?
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    if [[ $status -ne 0 ]]; then
        show_log
    fi
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir "$work/plugins" "$work/staging"
cp "$plugin" "$work/plugins/conformance.wasm"
# `test_trigger_tool_change` (server-stateless) changes the tool list by
# adding the `fnv` plugin from the staging directory to the watched plugins
# directory, or removing it; both are mounted into the conformance plugin by
# the policy, whose relative paths resolve next to it in $work. Compiling
# fnv once now fills the compile cache, so the reload is quick.
cp "$fnv_plugin" "$work/staging/fnv.wasm"
cp "$policy" "$work/mcp-wasm-host.toml"
"$host_bin" inspect "$work/staging/fnv.wasm" >/dev/null

say "starting $host_bin serve --http 127.0.0.1:0"
# The log exists before the server starts: the background job opens it in
# its own time, and the wait below reads it at once.
: >"$log"
RUST_LOG=info "$host_bin" serve --http 127.0.0.1:0 --plugins "$work/plugins" \
    --config "$work/mcp-wasm-host.toml" </dev/null >"$work/server.stdout" 2>"$log" &
server_pid=$!

# Wait for the URL and for the plugins to load (the server answers
# `initialize` before they have, and the first scenarios would then see no
# tools).
url=""
loaded=""
deadline=$((SECONDS + start_timeout))
while [[ -z "$url" || -z "$loaded" ]]; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
        wait "$server_pid" && status=0 || status=$?
        server_pid=""
        die "the server exited (status $status) before it was ready"
    fi
    if ((SECONDS >= deadline)); then
        die "the server was not ready within ${start_timeout} s (url: ${url:-none}, plugins loaded: ${loaded:-no})"
    fi
    clean="$(sed 's/\x1b\[[0-9;]*m//g' "$log")"
    url="$(grep -o 'listening on http://[^ ]*' <<<"$clean" | head -n1 | sed 's/^listening on //')" || true
    loaded="$(grep -m1 'plugins loaded' <<<"$clean")" || true
    [[ -n "$url" && -n "$loaded" ]] || sleep 0.2
done
if ! grep -q 'failed=0' <<<"$loaded" || ! grep -q 'plugins=1' <<<"$loaded"; then
    die "the conformance plugin did not load: $loaded"
fi
say "server ready at $url"

# The suite adds a timestamped directory per scenario and run: start from an
# empty directory when it is the default one, never delete a chosen one.
if [[ -z "${CONFORMANCE_OUT:-}" ]]; then
    rm -rf "$out"
fi
mkdir -p "$out"

# run NAME ARGS...: one run of the suite into $out/NAME, its table and
# closing line; returns the suite's status.
run() {
    local name="$1"
    shift
    local dir="$out/$name"
    mkdir -p "$dir"
    local args=(server --url "$url" -o "$dir" "$@")
    say "running ($name): conformance ${args[*]}"
    set +e
    timeout --kill-after=10 "$suite_timeout" "$node" "$suite_js" "${args[@]}" >"$dir/output.txt" 2>&1
    local status=$?
    set -e
    tail -n 40 "$dir/output.txt" >&2
    local requirements=()
    if [[ "$name" == 20* ]]; then
        requirements=("$conf_dir/node_modules/@modelcontextprotocol/conformance/requirements/$name.yaml")
    fi
    "$node" "$conf_dir/summarize.mjs" "$dir" "${baseline_arg[@]}" "${requirements[@]}" | sed "s/^conformance:/conformance ($name):/" | tee "$dir/summary.txt" || true
    if [[ $status -eq 124 ]]; then
        say "($name) the suite did not finish within ${suite_timeout} s"
    elif [[ $status -ne 0 ]]; then
        say "($name) the suite failed (exit $status); results in $dir"
    else
        say "($name) passed; results in $dir"
    fi
    return "$status"
}

suite_status=0
if [[ $# -eq 0 ]]; then
    baseline_arg=("$baseline")
    # Every scenario of the suite, at its default revision; then exactly
    # what each revision requires, at that revision's wire (2025-11-25 with
    # the initialize handshake, 2026-07-28 stateless with per-request _meta).
    run all --suite all --expected-failures "$baseline" || suite_status=1
    for revision in 2025-11-25 2026-07-28; do
        run "$revision" --requirements "$revision" --expected-failures "$baseline" || suite_status=1
    done
else
    baseline_arg=()
    run custom "$@" || suite_status=1
fi
if ! kill -0 "$server_pid" 2>/dev/null; then
    say "the server died during the suite"
    suite_status=1
fi
exit "$suite_status"
