# shellcheck shell=bash
# The arguments every plugin build script takes (scripts/build-c-plugin.sh,
# build-go-plugin.sh, build-js-plugin.sh, build-python-plugin.sh); sourced,
# not run, after lib/common.sh.
#
#   plugin_sources LANG MARKER "$@"
#       reads `OUT_DIR [NAME...]` (else prints the usage and exits 2); sets
#       out_dir (made if need be, absolute), src_root (where the NAME
#       directories are: plugins/LANG, or $MCP_WASM_HOST_PLUGIN_SRC; the
#       `languages` benchmark builds its probes from host/benches/guests/LANG),
#       src_rel (src_root relative to the repository) and names (the NAMEs
#       given, else every directory under src_root holding a file that
#       matches the glob MARKER). Dies when there is no plugin, or a NAME's
#       directory holds no MARKER.
plugin_sources() {
    local lang="$1" marker="$2" dir
    shift 2
    if [[ $# -lt 1 || "$1" == -* ]]; then
        echo "usage: $0 OUT_DIR [NAME...]" >&2
        exit 2
    fi
    out_dir="$1"
    shift
    mkdir -p "$out_dir"
    out_dir="$(cd "$out_dir" && pwd)"
    src_root="$(cd "${MCP_WASM_HOST_PLUGIN_SRC:-$repo/plugins/$lang}" && pwd)"
    src_rel="$(realpath --relative-to="$repo" "$src_root")"

    names=()
    if [[ $# -gt 0 ]]; then
        names=("$@")
    else
        for dir in "$src_root"/*/; do
            compgen -G "$dir$marker" >/dev/null && names+=("$(basename "$dir")")
        done
    fi
    [[ ${#names[@]} -gt 0 ]] || die "no plugins found under $src_root"
    for dir in "${names[@]}"; do
        compgen -G "$src_root/$dir/$marker" >/dev/null || die "no $marker in $src_root/$dir"
    done
}
