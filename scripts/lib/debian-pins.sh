# Sourced by the setup scripts that install Debian packages at pinned
# versions (setup-c.sh, setup-chromium.sh, setup-nginx.sh, setup-redis.sh).
#
#   install_pinned WHO LIST
#
# reads LIST (`package=version` lines; `#` starts a comment), sets the array
# `pins` to every pin, and installs with apt-get those dpkg-query does not
# show installed at their pinned version (none: apt-get is not run). WHO
# names the caller in messages, which go to stderr. Installing needs root
# (or sudo) and the Debian archive; a failed install is retried once after
# `apt-get update`. A pinned version the archive no longer has is an error
# naming the pin, the versions the archive does have and LIST: nothing else
# is installed in its place, since the tests would then pass or fail on a
# version nobody chose (update the pin in LIST, in a commit of its own).
# apt-get waits for the dpkg lock (up to 10 minutes) when another install,
# such as a setup script running beside this one, holds it.
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
    local apt=("${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600)
    echo "$who: installing ${missing[*]}" >&2
    if ! "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >&2; then
        echo "$who: apt-get install failed; updating the package lists and retrying" >&2
        "${apt[@]}" update >&2
        local gone=() pin available
        for pin in "${missing[@]}"; do
            name="${pin%%=*}"
            want="${pin#*=}"
            available="$(apt-cache madison "$name" | awk -F'|' '{gsub(/ /, "", $2); print $2}')"
            if ! grep -qxF -- "$want" <<<"$available"; then
                gone+=("$pin")
                available="${available//$'\n'/ }"
                echo "$who: ERROR: $pin is not in the Debian archive (its versions there:" \
                    "${available:-none})" >&2
            fi
        done
        if [[ ${#gone[@]} -gt 0 ]]; then
            echo "$who: refusing to install other versions than the pinned ones:" \
                "update ${gone[*]} in $list (and commit it), then run this again" >&2
            exit 1
        fi
        "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >&2
    fi
}

#   forbid_service_starts
#
# keeps a package's own service from starting while it installs (nginx,
# redis-server: the tests start their own, with configurations of their
# own). Debian's maintainer scripts start services through invoke-rc.d,
# which asks /usr/sbin/policy-rc.d first; exit code 101 means "not
# allowed". The file is placed only when there is none and we are root, and
# removed when the calling script exits.
forbid_service_starts() {
    local policy=/usr/sbin/policy-rc.d
    if [[ ! -e "$policy" && "$(id -u)" == 0 ]]; then
        printf '#!/bin/sh\nexit 101\n' > "$policy"
        chmod 755 "$policy"
        # shellcheck disable=SC2064 # the path is fixed now, on purpose
        trap "rm -f '$policy'" EXIT
    fi
}
