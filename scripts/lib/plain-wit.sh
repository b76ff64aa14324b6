# shellcheck shell=bash
# The WIT of a plain-WIT plugin (one with its own wit/ beside its sources,
# built without the SDK) for scripts/build-python-plugin.sh and
# build-js-plugin.sh; sourced, not run, after lib/common.sh.
#
#   plain_wit DIR OUT
#       makes OUT a WIT directory holding DIR's .wit files and, in OUT/deps/,
#       a symbolic link to each package of the vendored WASI WIT
#       (wit/wasi/*, see its README), so that the plugin's world imports
#       wasi:keyvalue, wasi:config and wasi:logging at the labels the host
#       serves as the repository has them: referenced in place, never copied
#       into the plugin.
plain_wit() {
    local dir="$1" out="$2" package
    mkdir -p "$out/deps"
    cp "$dir"/*.wit "$out/"
    for package in "$repo"/wit/wasi/*/; do
        ln -s "$package" "$out/deps/$(basename "$package")"
    done
}
