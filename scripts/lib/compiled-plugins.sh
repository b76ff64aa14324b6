# shellcheck shell=bash
# What the build scripts of compiled-language plugins share
# (scripts/build-c-plugin.sh, scripts/build-go-plugin.sh); sourced, not run,
# after lib/common.sh (for repo and cargo_target_dir).
#
#   plugins_setup PREFIX LANG MARKER CACHE_VAR "$@"
#       reads `OUT_DIR [NAME...]` with plugin_sources (lib/plugin-sources.sh:
#       sets out_dir, src_root, src_rel and names) and sets cache:
#       $CACHE_VAR if set, else LANG-plugins-cache in cargo's target
#       directory. Messages start with PREFIX.
#   plugins_hash PATH...
#       one hash over the path and contents of every file under the PATHs
#       (relative to the repository).
#   plugins_build NAME HASH BUILD
#       copies NAME-HASH.wasm from the cache to OUT_DIR, running
#       `BUILD NAME OUTPUT` first when the cache does not hold it (which
#       writes the component to OUTPUT); a new build replaces the plugin's
#       older ones. Prints the component's path on stdout.
#   plugins_workdir
#       a temporary directory, made on first use and removed on exit: sets
#       work.
#   sdk_tool ARG...
#       runs the SDKs' build tool (sdk-tool) through cargo.

# shellcheck source=plugin-sources.sh
. "$repo/scripts/lib/plugin-sources.sh"

plugins_setup() {
    prefix="$1" lang="$2"
    local marker="$3" cache_var="$4"
    shift 4
    plugin_sources "$lang" "$marker" "$@"
    cache="${!cache_var:-$(cargo_target_dir)/$lang-plugins-cache}"
    mkdir -p "$cache"
}

plugins_hash() {
    (cd "$repo" && find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
        sha256sum | cut -c1-16
}

plugins_build() {
    local name="$1" cached="$cache/$1-$2.wasm" build="$3" start end
    if [[ -f "$cached" ]]; then
        echo "$prefix: $name.wasm: unchanged, from $cached" >&2
    else
        start=$(date +%s.%N)
        "$build" "$name" "$cached.part"
        end=$(date +%s.%N)
        find "$cache" -maxdepth 1 -name "$name-*.wasm" -delete
        mv "$cached.part" "$cached"
        awk -v p="$prefix" -v n="$name" -v a="$start" -v b="$end" -v s="$(stat -c %s "$cached")" 'BEGIN {
            printf "%s: %s.wasm built in %.1f s (%d bytes)\n", p, n, b - a, s > "/dev/stderr" }'
    fi
    cp "$cached" "$out_dir/$name.wasm"
    echo "$out_dir/$name.wasm"
}

work=""
plugins_workdir() {
    if [[ -z "$work" ]]; then
        work="$(mktemp -d)"
        trap '[[ -z "$work" ]] || rm -rf "$work"' EXIT
    fi
}

sdk_tool() {
    "${CARGO:-cargo}" run --quiet --locked --manifest-path "$repo/Cargo.toml" \
        -p mcp-wasm-sdk-tool -- "$@"
}
