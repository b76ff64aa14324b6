#!/usr/bin/env bash
# Installs mcp-wasm-host the way a user does with `cargo install`, from the
# crates `cargo package` makes (not from the workspace), as a static binary
# (x86_64-unknown-linux-musl), which runs on any Linux x86_64 and is what the
# container image and the MCP bundle carry:
#   1. cargo package, of the three crates together (the host depends on the
#      runtime crate by exact version, as it will on crates.io, and the
#      runtime on the state store's): the host's crate file with the
#      templates of `new` and the Cargo.lock it is tested with, the
#      runtime's, with the WIT, and the store's;
#   2. all three are unpacked outside the clone; the host's manifest gets a
#      `[patch.crates-io]` naming the unpacked runtime and store (what
#      crates.io will serve once they are published), and its lockfile
#      entries for them say so; `cargo install --locked --path` builds and installs it into
#      ROOT (its bin/mcp-wasm-host), with every other package as locked.
#
#   scripts/install-host.sh [ROOT]
#
# MCP_WASM_HOST_INSTALL_TARGET picks the target triple (scripts/release.sh
# sets it): x86_64-unknown-linux-musl (the default), or one of the triples
# scripts/setup-cross.sh installs: aarch64-unknown-linux-musl and
# x86_64-pc-windows-gnu (cargo install with Debian's MinGW gcc as C compiler
# and linker), aarch64-apple-darwin and x86_64-apple-darwin (cargo-zigbuild
# builds the unpacked crate, with Zig as C compiler and linker, into
# ROOT/bin as cargo install would; so does aarch64-unknown-linux-musl). A binary of another triple than the
# machine's is checked under qemu-aarch64 or wine64; a macOS one is not run.
#
# MCP_WASM_HOST_INSTALL_PROFILE picks cargo's profile:
#   release  (the default) what a user's `cargo install` builds, and what
#            scripts/build-image.sh and scripts/build-bundle.sh ship;
#   quick    for the tests (scripts/test.sh sets it): the workspace's `dev`
#            profile, with the opt-level overrides the integration tests'
#            host is built with (Cranelift and the other crates of
#            Cargo.toml's [profile.dev.package.*], read from there), without
#            debug info or incremental builds. The crates, the lockfile, the
#            features, the target and the steps are the same; it compiles
#            in a fraction of release's time (CONTRIBUTING.md, "What each
#            step costs").
# ROOT is TARGET_DIR/installed-host (TARGET_DIR/installed-host-PROFILE for
# another profile than release, with -TRIPLE after it for another triple;
# the build directory below is TARGET_DIR/install-host-TRIPLE then). The build has a target directory of its
# own, TARGET_DIR/install-host: it shares nothing with the workspace's
# builds (another target triple, another profile), and so never waits for
# their lock, nor they for its, when it runs beside them; a rerun compiles
# only the host crate, when it changed.
# Prints the installed binary's path on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
target="$(cargo_target_dir)"
profile="${MCP_WASM_HOST_INSTALL_PROFILE:-release}"
triple="${MCP_WASM_HOST_INSTALL_TARGET:-x86_64-unknown-linux-musl}"
suffix=""
if [[ "$triple" != x86_64-unknown-linux-musl ]]; then
    suffix="-$triple"
fi
case "$profile" in
    release)
        root="${1:-$target/installed-host$suffix}"
        profile_args=()
        ;;
    quick)
        root="${1:-$target/installed-host-quick$suffix}"
        # Defined with `--config`: the unpacked crate is a workspace of its
        # own, and cargo package drops the workspace's profiles.
        mapfile -t profile_args < <(python3 - "$repo/Cargo.toml" <<'EOF'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    dev = tomllib.load(f).get("profile", {}).get("dev", {})
print("--profile=quick")
for key, value in [("inherits", '"dev"'), ("debug", "false"), ("incremental", "false")]:
    print(f"--config=profile.quick.{key}={value}")
for package, settings in sorted(dev.get("package", {}).items()):
    for key, value in sorted(settings.items()):
        print(f"--config=profile.quick.package.{package}.{key}={value!r}")
EOF
        )
        ;;
    *)
        die "MCP_WASM_HOST_INSTALL_PROFILE=$profile: release or quick"
        ;;
esac

runner=()
exe=""
case "$triple" in
    x86_64-unknown-linux-musl)
        CC_x86_64_unknown_linux_musl="$("$repo/scripts/setup-musl.sh")"
        export CC_x86_64_unknown_linux_musl
        ;;
    aarch64-unknown-linux-musl | x86_64-pc-windows-gnu | aarch64-apple-darwin | x86_64-apple-darwin)
        # shellcheck disable=SC1090 # written by setup-cross.sh
        . "$("$repo/scripts/setup-cross.sh")"
        case "$triple" in
            aarch64-unknown-linux-musl) runner=("$MCP_WASM_HOST_QEMU_AARCH64") ;;
            x86_64-pc-windows-gnu)
                runner=(env WINEPREFIX="$MCP_WASM_HOST_WINEPREFIX" WINEDEBUG=-all "$MCP_WASM_HOST_WINE")
                exe=.exe
                ;;
        esac
        ;;
    *)
        die "MCP_WASM_HOST_INSTALL_TARGET=$triple: not a triple this script builds"
        ;;
esac
# Another triple builds in a directory of its own as well, so the release
# builds of several triples can run at once (cargo locks a target directory
# for the whole build).
export CARGO_TARGET_DIR="$target/install-host$suffix"

say "cargo package -p mcp-wasm-host-store -p mcp-wasm-host-runtime -p mcp-wasm-host"
(cd "$repo" && cargo package --quiet --locked --allow-dirty --no-verify \
    -p mcp-wasm-host-store -p mcp-wasm-host-runtime -p mcp-wasm-host >&2)
version="$(cd "$repo" && cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-wasm-host"))')"
host_crate="$CARGO_TARGET_DIR/package/mcp-wasm-host-$version.crate"
runtime_crate="$CARGO_TARGET_DIR/package/mcp-wasm-host-runtime-$version.crate"
store_crate="$CARGO_TARGET_DIR/package/mcp-wasm-host-store-$version.crate"

# Unpacked at a fixed place outside any workspace, so cargo sees the same
# sources at the same path and rebuilds only what changed. Each crate is
# unpacked again only when its own bytes changed (unpacking gives its files
# new times), so a change in the host alone does not compile the runtime
# again, and an unchanged host is not compiled at all. `tar -m` gives the
# files the time of the unpacking: `cargo package` writes one fixed old
# time (2006) into every crate, and cargo, which compares a path crate's
# file times with its last build, would take a crate unpacked again with
# the archive's times for unchanged and reuse the old build.
src="$cache_root/host-crate"
host="$src/mcp-wasm-host-$version"
runtime="$src/mcp-wasm-host-runtime-$version"
store="$src/mcp-wasm-host-store-$version"
mkdir -p "$src"
# One install at a time holds the unpacked crates, from the unpacking to the
# end of the build: another run (CI's quick install beside a release build
# of another triple, or of another checkout) would otherwise unpack other
# crates over the sources a build is reading, or delete the directory the
# linker runs in (Zig: `CurrentDirUnlinked`). A second run waits.
exec {lock}>"$src.lock"
if ! flock --nonblock "$lock"; then
    say "waiting for another install-host.sh run, which holds $src"
    flock "$lock"
fi
# unpacked CRATE DIR: whether DIR holds CRATE's files, unpacked from exactly
# its bytes (the stamp is written only once DIR is complete).
unpacked() {
    [[ -d "$2" ]] && stamped "$2.sha256" "$(sha256_of "$1")"
}
for pair in "$store_crate:$store" "$runtime_crate:$runtime"; do
    crate="${pair%%:*}" dir="${pair#*:}"
    if ! unpacked "$crate" "$dir"; then
        rm -rf "$dir" "$dir.sha256"
        tar -xzmf "$crate" -C "$src"
        sha256_of "$crate" >"$dir.sha256"
    fi
done
if ! unpacked "$host_crate" "$host"; then
    rm -rf "$host" "$host.sha256"
    tar -xzmf "$host_crate" -C "$src"
    python3 "$repo/scripts/lib/patch-local-crate.py" "$host" \
        mcp-wasm-host-runtime "$runtime" mcp-wasm-host-store "$store"
    sha256_of "$host_crate" >"$host.sha256"
fi

bin="$root/bin/mcp-wasm-host$exe"
case "$triple" in
    aarch64-unknown-linux-musl | *-apple-darwin)
        # Zig's C compiler and linker (cargo-zigbuild, which has no
        # `install`): the same build of the unpacked crate with its lockfile,
        # copied where cargo install puts it. Zig brings musl's headers for
        # aarch64 (Debian's gcc-aarch64-linux-gnu has glibc's only).
        # Zig has no macOS framework: a link's missing frameworks and symbols
        # become text stubs (scripts/lib/macos-stubs.py), and the link is
        # tried again; the stubs' folder is always on the linker's framework
        # path, so the flags, and so cargo's fingerprints, stay the same.
        stubs="$CARGO_TARGET_DIR/macos-frameworks"
        if [[ "$triple" == *-apple-darwin ]]; then
            # The oldest macOS the binary runs on: 11 (Big Sur), Rust's own
            # minimum for aarch64-apple-darwin. Without it Zig writes its
            # newest (minos 15.0), and macOS 11 to 14 refuse the binary.
            # rustc and cargo-zigbuild (Zig's -target) both read it.
            export MACOSX_DEPLOYMENT_TARGET=11.0
            mkdir -p "$stubs"
            flags_var="CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")_RUSTFLAGS"
            export "$flags_var=-Clink-arg=-F$stubs"
            # Zig through scripts/lib/macos-link.py, which names each
            # framework and library once (macOS 26 refuses a binary that
            # loads one twice, and several crates link CoreFoundation).
            linker_var="CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")_LINKER"
            export "$linker_var=$repo/scripts/lib/macos-link.py" MCP_WASM_HOST_ZIGBUILD
        fi
        log="$(mktemp)"
        for attempt in 1 2 3 4 5; do
            say "cargo zigbuild --locked --target $triple --profile $profile (link $attempt)"
            if (cd "$host" && "$MCP_WASM_HOST_ZIGBUILD" zigbuild --quiet --locked --target "$triple" \
                "${profile_args[@]:---release}") >"$log" 2>&1; then
                break
            fi
            rc=0
            if [[ "$triple" == *-apple-darwin ]]; then
                python3 "$repo/scripts/lib/macos-stubs.py" "$stubs" "$log" || rc=$?
            else
                rc=1
            fi
            if [[ $rc != 0 || $attempt == 5 ]]; then
                cat "$log" >&2
                rm -f "$log"
                die "cargo zigbuild --target $triple failed"
            fi
        done
        rm -f "$log"
        mkdir -p "$root/bin"
        install -m 0755 "$CARGO_TARGET_DIR/$triple/$profile/mcp-wasm-host" "$bin"
        ;;
    *)
        say "cargo install --locked --target $triple --profile $profile --root $root"
        cargo install --quiet --locked --force --target "$triple" --root "$root" \
            "${profile_args[@]}" --path "$host" >&2
        ;;
esac
# (wine leaves its wineserver running a while: it must not hold the lock.)
if [[ "$triple" != *-apple-darwin ]] && ! "${runner[@]}" "$bin" --version >/dev/null {lock}>&-; then
    die "$bin does not run ${runner[*]:+under ${runner[*]}}"
fi
echo "$bin"
