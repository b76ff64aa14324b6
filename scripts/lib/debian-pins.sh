# Sourced by the setup scripts that install Debian packages at pinned
# versions (setup-c.sh, setup-chromium.sh).
#
#   install_pinned WHO LIST
#
# reads LIST (`package=version` lines; `#` starts a comment), sets the array
# `pins` to every pin, and installs with apt-get those dpkg-query does not
# show installed at their pinned version (none: apt-get is not run). WHO
# names the caller in messages, which go to stderr. Installing needs root
# (or sudo) and the Debian archive; a failed install is retried once after
# `apt-get update`.
install_pinned() {
    local who="$1" list="$2" line name want have
    local missing=()
    pins=()
    while read -r line; do
        line="${line%%#*}"
        line="${line//[[:space:]]/}"
        [[ -n "$line" ]] || continue
        pins+=("$line")
        name="${line%%=*}"
        want="${line#*=}"
        have="$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)"
        if [[ "$have" != "install ok installed $want" ]]; then
            missing+=("$line")
        fi
    done < "$list"
    [[ ${#missing[@]} -gt 0 ]] || return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "$who: apt-get not found; install these Debian packages: ${missing[*]}" >&2
        exit 1
    fi
    local sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        sudo=(sudo)
    fi
    echo "$who: installing ${missing[*]}" >&2
    if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
        echo "$who: apt-get install failed; updating the package lists and retrying" >&2
        "${sudo[@]}" apt-get update >&2
        local resolved=() pin
        for pin in "${missing[@]}"; do
            name="${pin%%=*}"
            want="${pin#*=}"
            if apt-cache madison "$name" | awk -F'|' '{gsub(/ /, "", $2); print $2}' \
                | grep -qxF -- "$want"; then
                resolved+=("$pin")
            else
                echo "$who: WARNING: $pin is no longer in the Debian archive;" \
                    "installing its current version instead (update the pin in $list)" >&2
                resolved+=("$name")
            fi
        done
        "${sudo[@]}" apt-get install -y --no-install-recommends "${resolved[@]}" >&2
    fi
}
