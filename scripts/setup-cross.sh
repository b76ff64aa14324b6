#!/usr/bin/env bash
# Installs what cross-builds and runs the release binaries (scripts/release.sh):
#   - rustup's standard libraries for aarch64-unknown-linux-musl,
#     x86_64-pc-windows-gnu, aarch64-apple-darwin and x86_64-apple-darwin;
#   - the Debian packages pinned in packaging/cross/compilers.txt (MinGW's
#     gcc) and packaging/cross/debian-packages.txt (qemu-user-static, wine64,
#     llvm's object tools);
#   - the kernel's binfmt_misc entry for aarch64 ELF files (qemu-user-static's
#     own, from /usr/lib/binfmt.d/qemu-aarch64.conf), so that podman runs the
#     arm64 image: the kernel starts the image's binary through
#     qemu-aarch64-static. This changes the whole machine (every aarch64
#     binary then runs under qemu), as Debian's package does on a machine
#     with systemd; where the kernel refuses (no binfmt_misc, no privilege),
#     the reason is exported instead and the release falls back to running
#     the image's binary under qemu-aarch64-static directly.
#   - ziglang and cargo-zigbuild from PyPI, pinned in
#     packaging/cross/requirements.txt, in a virtual environment of their own
#     ($cache_root/cross-venv): the C compiler and linker of the macOS
#     triples and of aarch64-unknown-linux-musl.
# Idempotent: apt-get, rustup and pip run only for what is missing.
#
#   scripts/setup-cross.sh [--check]
#
# --check installs only what `cargo check` of the Windows and macOS code
# needs (scripts/check-cross.sh, in CI): the standard libraries of
# x86_64-pc-windows-gnu and aarch64-apple-darwin, MinGW's gcc and Zig; no
# emulator, no binfmt_misc entry (MCP_WASM_HOST_QEMU_AARCH64, _BINFMT_AARCH64,
# _WINE and _OBJDUMP are then not exported).
#
# Prints the path of a shell file to source on stdout (everything else goes
# to stderr); it exports the C compiler and linker of x86_64-pc-windows-gnu
# for cargo (cargo-zigbuild sets Zig's for the others) and the programs the release
# build and its smoke tests run:
#   MCP_WASM_HOST_ZIGBUILD      cargo-zigbuild (its venv's bin is put on PATH);
#   MCP_WASM_HOST_QEMU_AARCH64  qemu-aarch64-static;
#   MCP_WASM_HOST_BINFMT_AARCH64  `registered`, or why the kernel does not
#                               run aarch64 binaries through qemu;
#   MCP_WASM_HOST_WINE          wine64;
#   MCP_WASM_HOST_WINEPREFIX    the wine prefix to run it in (WINEPREFIX):
#                               wine's, with a stand-in for the one DLL
#                               Rust's std needs that wine 8.0 lacks;
#   MCP_WASM_HOST_OBJDUMP       llvm-objdump;
#   MCP_WASM_HOST_LIPO          llvm-lipo (scripts/build-bundle.sh joins the two
#                               macOS binaries into one universal binary);
#   MCP_WASM_HOST_STRIP         llvm-strip.
# as in
#   . "$(scripts/setup-cross.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

check=0
case "${1:-}" in
    "") ;;
    --check) check=1 ;;
    *) die "usage: scripts/setup-cross.sh [--check]" ;;
esac

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
install_pinned setup-cross "$repo/packaging/cross/compilers.txt"
triples=(x86_64-pc-windows-gnu aarch64-apple-darwin)
if [[ "$check" == 0 ]]; then
    install_pinned setup-cross "$repo/packaging/cross/debian-packages.txt"
    triples+=(aarch64-unknown-linux-musl x86_64-apple-darwin)
fi
installed="$(rustup target list --installed 2>/dev/null)"
missing=()
for t in "${triples[@]}"; do
    grep -qx "$t" <<<"$installed" || missing+=("$t")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    say "rustup target add ${missing[*]}"
    rustup target add "${missing[@]}" >&2
fi

venv="$cache_root/cross-venv"
req="$repo/packaging/cross/requirements.txt"
stamp="$venv/.requirements.sha256"
want="$(sha256_of "$req")"
if ! [[ -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c '' 2>/dev/null; then
    say "creating $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
fi
if ! stamped "$stamp" "$want"; then
    say "installing $req"
    rm -f "$stamp"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" >&2
    echo "$want" >"$stamp"
fi

tools=(x86_64-w64-mingw32-gcc "$venv/bin/cargo-zigbuild")
wine=/usr/lib/wine/wine64
if [[ "$check" == 0 ]]; then
    tools+=(qemu-aarch64-static llvm-objdump-19 llvm-lipo-19 llvm-strip-19 "$wine")
fi
for tool in "${tools[@]}"; do
    if ! "$tool" --version >/dev/null 2>&1; then
        die "$tool does not run after installing the cross tools"
    fi
done
if ! "$venv/bin/python-zig" version >/dev/null 2>&1; then
    die "$venv/bin/python-zig (Zig) does not run after installing $req"
fi

out="$cache_root/cross-check-env.sh"
env_lines="# Written by scripts/setup-cross.sh: source it.
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export MCP_WASM_HOST_ZIGBUILD=$venv/bin/cargo-zigbuild
export PATH=\"$venv/bin:\$PATH\""

if [[ "$check" == 0 ]]; then
    # binfmt_misc: qemu-user-static's entry, as its package ships it (magic,
    # mask and the `F` flag, which opens the interpreter now, so that it
    # runs inside a container's root as well).
    binfmt=/proc/sys/fs/binfmt_misc
    entry="$(cat /usr/lib/binfmt.d/qemu-aarch64.conf)"
    interpreter="$(cut -d: -f7 <<<"$entry")"
    binfmt_state=""
    if [[ ! -e "$binfmt/register" ]]; then
        mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null ||
            binfmt_state="binfmt_misc is not mounted at $binfmt and cannot be mounted here"
    fi
    if [[ -z "$binfmt_state" ]]; then
        if [[ -e "$binfmt/qemu-aarch64" ]]; then
            if ! grep -qx enabled "$binfmt/qemu-aarch64" ||
                ! grep -qx "interpreter $interpreter" "$binfmt/qemu-aarch64"; then
                binfmt_state="$binfmt/qemu-aarch64 is registered otherwise (disabled, or another interpreter)"
            fi
        elif ! { printf '%s' "$entry" >"$binfmt/register"; } 2>/dev/null; then
            binfmt_state="the kernel refused the binfmt_misc entry for aarch64 (no privilege to register it)"
        else
            say "registered qemu-aarch64-static with the kernel's binfmt_misc for aarch64 ELF files"
        fi
    fi
    binfmt_state="${binfmt_state:-registered}"

    # The wine prefix the Windows binary runs in: wine's own, plus a stand-in
    # for bcryptprimitives.dll, which Rust's standard library needs and
    # Debian 12's wine 8.0 lacks (scripts/lib/wine/bcryptprimitives.c says
    # why). Made again when that source changes.
    prefix="$cache_root/wine-prefix"
    shim="$repo/scripts/lib/wine/bcryptprimitives.c"
    want="$(sha256_of "$shim")"
    if ! stamped "$prefix.sha256" "$want"; then
        say "making the wine prefix $prefix"
        rm -rf "$prefix" "$prefix.sha256"
        WINEPREFIX="$prefix" WINEDEBUG=-all "$wine" wineboot --init >/dev/null 2>&1 ||
            die "wineboot --init failed in $prefix"
        x86_64-w64-mingw32-gcc -shared -O2 -Wl,--kill-at -o "$prefix/drive_c/windows/system32/bcryptprimitives.dll" \
            "$shim" -ladvapi32 >&2
        echo "$want" >"$prefix.sha256"
    fi
    out="$cache_root/cross-env.sh"
    env_lines+="
export MCP_WASM_HOST_QEMU_AARCH64=$(command -v qemu-aarch64-static)
export MCP_WASM_HOST_BINFMT_AARCH64=${binfmt_state@Q}
export MCP_WASM_HOST_WINE=$wine
export MCP_WASM_HOST_WINEPREFIX=$prefix
export MCP_WASM_HOST_OBJDUMP=$(command -v llvm-objdump-19)
export MCP_WASM_HOST_LIPO=$(command -v llvm-lipo-19)
export MCP_WASM_HOST_STRIP=$(command -v llvm-strip-19)"
fi
printf '%s\n' "$env_lines" >"$out.tmp"
mv -f "$out.tmp" "$out"
echo "$out"
