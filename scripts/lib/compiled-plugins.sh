# shellcheck shell=bash
# What the build scripts of compiled-language plugins share
# (scripts/build-c-plugin.sh, scripts/build-go-plugin.sh); sourced, not run.
#
#   plugins_setup PREFIX LANG MARKER CACHE_VAR "$@"
#       reads `OUT_DIR [NAME...]`; sets repo, out_dir, cache, src_root (where
#       the NAME directories are: plugins/LANG, or $MCP_WASM_HOST_PLUGIN_SRC;
#       the `languages` benchmark builds its probes from
#       host/benches/guests/LANG), src_rel (src_root relative to the
#       repository, for plugins_hash) and names (every NAME directory
#       holding a file matching MARKER when no NAME is given). Messages start with PREFIX; $CACHE_VAR, if set, overrides
#       the cache directory (LANG-plugins-cache in cargo's target
#       directory).
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

plugins_setup() {
    prefix="$1" lang="$2"
    local marker="$3" cache_var="$4"
    shift 4
    if [[ $# -lt 1 || "$1" == -* ]]; then
        echo "usage: $0 OUT_DIR [NAME...]" >&2
        exit 2
    fi
    repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    out_dir="$1"
    shift
    mkdir -p "$out_dir"
    out_dir="$(cd "$out_dir" && pwd)"
    # shellcheck source=target-dir.sh
    . "$repo/scripts/lib/target-dir.sh"
    cache="${!cache_var:-$(cargo_target_dir)/$lang-plugins-cache}"
    mkdir -p "$cache"
    src_root="$(cd "${MCP_WASM_HOST_PLUGIN_SRC:-$repo/plugins/$lang}" && pwd)"
    src_rel="$(realpath --relative-to="$repo" "$src_root")"

    local dir
    names=()
    if [[ $# -gt 0 ]]; then
        names=("$@")
    else
        for dir in "$src_root"/*/; do
            compgen -G "$dir$marker" >/dev/null && names+=("$(basename "$dir")")
        done
    fi
    if [[ ${#names[@]} -eq 0 ]]; then
        echo "$prefix: no plugins found under $src_root" >&2
        exit 1
    fi
    for dir in "${names[@]}"; do
        if ! compgen -G "$src_root/$dir/$marker" >/dev/null; then
            echo "$prefix: no $marker in $src_root/$dir" >&2
            exit 1
        fi
    done
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
