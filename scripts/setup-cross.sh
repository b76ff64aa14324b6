#!/usr/bin/env bash
# Installs what cross-builds and runs the release binaries (scripts/release.sh):
#   - rustup's standard libraries for aarch64-unknown-linux-musl,
#     x86_64-pc-windows-gnu, aarch64-apple-darwin and x86_64-apple-darwin;
#   - the Debian packages pinned in packaging/cross/debian-packages.txt
#     (MinGW's gcc, qemu-user, wine64, llvm's object tools);
#   - ziglang and cargo-zigbuild from PyPI, pinned in
#     packaging/cross/requirements.txt, in a virtual environment of their own
#     ($cache_root/cross-venv): the C compiler and linker of the macOS
#     triples and of aarch64-unknown-linux-musl.
# Idempotent: apt-get, rustup and pip run only for what is missing.
#
# Prints the path of a shell file to source on stdout (everything else goes
# to stderr); it exports the C compiler and linker of x86_64-pc-windows-gnu
# for cargo (cargo-zigbuild sets Zig's for the others) and the programs the release
# build and its smoke tests run:
#   MCP_WASM_HOST_ZIGBUILD      cargo-zigbuild (its venv's bin is put on PATH);
#   MCP_WASM_HOST_QEMU_AARCH64  qemu-aarch64;
#   MCP_WASM_HOST_WINE          wine64;
#   MCP_WASM_HOST_OBJDUMP       llvm-objdump;
#   MCP_WASM_HOST_LIPO          llvm-lipo (scripts/build-bundle.sh joins the two
#                               macOS binaries into one universal binary).
# as in
#   . "$(scripts/setup-cross.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
install_pinned setup-cross "$repo/packaging/cross/debian-packages.txt"

triples=(aarch64-unknown-linux-musl x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin)
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

wine=/usr/lib/wine/wine64
for tool in x86_64-w64-mingw32-gcc qemu-aarch64 llvm-objdump-19 llvm-lipo-19 "$wine" \
    "$venv/bin/cargo-zigbuild"; do
    if ! "$tool" --version >/dev/null 2>&1; then
        die "$tool does not run after installing the cross tools"
    fi
done
if ! "$venv/bin/python-zig" version >/dev/null 2>&1; then
    die "$venv/bin/python-zig (Zig) does not run after installing $req"
fi

out="$cache_root/cross-env.sh"
cat >"$out.tmp" <<ENV
# Written by scripts/setup-cross.sh: source it.
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export MCP_WASM_HOST_ZIGBUILD=$venv/bin/cargo-zigbuild
export MCP_WASM_HOST_QEMU_AARCH64=$(command -v qemu-aarch64)
export MCP_WASM_HOST_WINE=$wine
export MCP_WASM_HOST_OBJDUMP=$(command -v llvm-objdump-19)
export MCP_WASM_HOST_LIPO=$(command -v llvm-lipo-19)
export PATH="$venv/bin:\$PATH"
ENV
mv -f "$out.tmp" "$out"
echo "$out"
