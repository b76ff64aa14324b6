#!/usr/bin/env bash
# Builds what a release publishes into DIR, with SHA256SUMS beside it:
#
#   scripts/release.sh DIR
#
# 1. The static binaries, each as a user's `cargo install` builds it from the
#    packaged crates (scripts/install-host.sh with
#    MCP_WASM_HOST_INSTALL_TARGET; release profile), named
#    mcp-wasm-host-VERSION-TRIPLE[.exe]:
#      x86_64-unknown-linux-musl, aarch64-unknown-linux-musl  static ELF;
#      x86_64-pc-windows-gnu                                  PE, .exe;
#      aarch64-apple-darwin, x86_64-apple-darwin              Mach-O
#                                                             (cargo-zigbuild).
#    MCP_WASM_HOST_RELEASE_TRIPLES (space-separated) builds only those.
# 2. Checks of each binary's format: an ELF of the right machine with no
#    interpreter; a PE for x86-64 that imports only Windows' own DLLs; a
#    Mach-O of the right CPU that loads only /usr/lib and /System libraries,
#    each once, runs on macOS 11 and later, and is signed (arm64)
#    (scripts/lib/check-binary.py).
# 3. Smoke tests under emulation, with the official MCP Python SDK client
#    (tests/python/sdk_client.py) over stdio and two plugins built from
#    source on the spot (plugins/examples/text, plugins/testing/hostile),
#    scripts/lib/smoke-cross.py: a tool call (Cranelift compiles the plugins
#    for the binary's CPU), a read of a read-only mount, a write into it
#    refused, and a loop stopped by its fuel limit:
#      aarch64 Linux under qemu-aarch64-static, with the instance pool at four
#        instances (qemu keeps memory for every emulated page), then as on a
#        kernel with 39-bit addresses (qemu -R 512G), where the pool does not
#        fit and the server allocates instances on demand;
#      Windows under wine64, in the prefix of scripts/setup-cross.sh.
#    The macOS binaries cannot run here. MCP_WASM_HOST_RELEASE_SMOKE=0 skips
#    the smoke tests.
# 4. With both Linux binaries: the multi-platform image (linux/amd64 and
#    linux/arm64, scripts/build-image.sh) as an OCI layout in DIR/image. Its
#    arm64 image must hold the arm64 binary above, byte for byte, and serves
#    the smoke test under podman (through the kernel's binfmt_misc entry for
#    qemu), or where the kernel has none, its binary says its version under
#    qemu-aarch64-static.
# 5. The MCP Bundle of every binary built (scripts/build-bundle.sh),
#    unpacked with the official CLI and checked as a client resolves each
#    platform's command (scripts/lib/check-bundle.py); its Windows command
#    serves the smoke test under wine, its Linux launcher natively.
# 6. With the bundle of every platform: DIR/server.json, the repository's
#    with the bundle's SHA-256 (scripts/lib/release-server-json.py).
# The ELF and PE binaries are stripped of their symbol tables.
# Each build's wall and CPU time (user+sys) and each artifact's size are
# printed on stderr at the end. Prints DIR on stdout.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
if [[ $# -ne 1 ]]; then
    echo "usage: scripts/release.sh DIR" >&2
    exit 2
fi
mkdir -p "$1"
out="$(cd "$1" && pwd)"
target="$(cargo_target_dir)"
read -r -a triples <<<"${MCP_WASM_HOST_RELEASE_TRIPLES:-x86_64-unknown-linux-musl aarch64-unknown-linux-musl x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin}"
version="$(cd "$repo" && cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-wasm-host"))')"
# shellcheck disable=SC1090 # written by setup-cross.sh
. "$("$repo/scripts/setup-cross.sh")"
times="$(mktemp)"
trap 'rm -f "$times"' EXIT

# timed NAME COMMAND...: runs COMMAND, recording its wall and CPU seconds.
timed() {
    local name="$1" t
    shift
    t="$(mktemp)"
    /usr/bin/time -f '%e %U %S' -o "$t" "$@"
    read -r wall user sys <"$t"
    rm -f "$t"
    awk -v n="$name" -v w="$wall" -v c="$user + $sys" 'BEGIN { split(c, a, " + ");
        printf "%-34s wall %6.0f s  cpu %6.0f s\n", n, w, a[1] + a[2] }' >>"$times"
}

# binary_name TRIPLE: the file name of TRIPLE's release binary.
binary_name() {
    local exe=""
    [[ "$1" != *windows* ]] || exe=.exe
    echo "mcp-wasm-host-$version-$1$exe"
}

artifacts=()
for triple in "${triples[@]}"; do
    name="$(binary_name "$triple")"
    built="$(mktemp)"
    timed "build $triple" env MCP_WASM_HOST_INSTALL_TARGET="$triple" \
        MCP_WASM_HOST_INSTALL_PROFILE=release "$repo/scripts/install-host.sh" >"$built"
    install -m 0755 "$(cat "$built")" "$out/$name"
    rm -f "$built"
    if [[ "$triple" != *-apple-darwin ]]; then
        # Without the symbol table: 73 to 57 MB for x86_64 Linux, 96 to 68 MB
        # for Windows (Zig's link of aarch64 Linux has none already). A
        # panic's backtrace then shows addresses, not function names; a
        # `cargo install` build keeps them. A Mach-O is left as linked:
        # stripping it would break its code signature.
        "$MCP_WASM_HOST_STRIP" --strip-all "$out/$name"
    fi
    python3 "$repo/scripts/lib/check-binary.py" --objdump "$MCP_WASM_HOST_OBJDUMP" "$triple" "$out/$name" >&2
    artifacts+=("$name")
done

smoke=0
if [[ "${MCP_WASM_HOST_RELEASE_SMOKE:-1}" != 0 ]]; then
    smoke=1
    python="$("$repo/scripts/setup-python.sh")"
    say "building the smoke tests' plugins from source (wasm32-wasip2)"
    timed "build plugins text, hostile" env CARGO_TARGET_DIR="$target/wasm-plugins" \
        cargo build --quiet --locked --manifest-path "$repo/Cargo.toml" --profile guest \
        --target wasm32-wasip2 -p plugin-text -p plugin-hostile
    plugin_dir="$target/wasm-plugins/wasm32-wasip2/guest"
    smoke_cross=("$python" "$repo/scripts/lib/smoke-cross.py" --python "$python" --plugins "$plugin_dir")
    for triple in "${triples[@]}"; do
        binary="$out/$(binary_name "$triple")"
        case "$triple" in
            aarch64-unknown-linux-musl)
                # qemu-user keeps memory for every page of the address space
                # the emulated process maps, reserved or not: the default
                # pool's 4.4 TiB would take it tens of GiB, so the pool is
                # kept to four instances (69 GiB reserved, 0.9 GiB of qemu's).
                timed "smoke $triple (qemu)" "${smoke_cross[@]}" --runner "$MCP_WASM_HOST_QEMU_AARCH64" \
                    --binary "$binary" --server-arg=--max-instances=4 >&2
                # As on an arm64 kernel with 39-bit addresses (512 GiB, as
                # some boards' and phones' kernels are): the default pool
                # does not fit, and the server allocates instances on demand.
                timed "smoke $triple (qemu, 39-bit)" "${smoke_cross[@]}" --runner "$MCP_WASM_HOST_QEMU_AARCH64" \
                    --runner-arg=-R --runner-arg=512G --binary "$binary" \
                    --expect-log "cannot reserve its address space" >&2
                ;;
            x86_64-pc-windows-gnu)
                WINEPREFIX="$MCP_WASM_HOST_WINEPREFIX" timed "smoke $triple (wine)" "${smoke_cross[@]}" \
                    --runner "$MCP_WASM_HOST_WINE" --binary "$binary" >&2
                ;;
        esac
    done
fi

# The image index, when both Linux binaries are built: an OCI layout in
# DIR/image (its blobs are named by their SHA-256 already). Its arm64 image
# must hold the very arm64 binary checked above, and serve: under podman
# when the kernel runs aarch64 binaries through qemu (binfmt_misc,
# scripts/setup-cross.sh), else its binary, taken from the layer, under
# qemu-aarch64-static.
amd64="$out/mcp-wasm-host-$version-x86_64-unknown-linux-musl"
arm64="$out/mcp-wasm-host-$version-aarch64-unknown-linux-musl"
if [[ -f "$amd64" && -f "$arm64" ]]; then
    MCP_WASM_HOST_INSTALLED_BIN="$amd64" MCP_WASM_HOST_INSTALLED_BIN_ARM64="$arm64" \
        timed "image index (amd64, arm64)" "$repo/scripts/build-image.sh" "$out/image" >/dev/null
    layer_binary="$(mktemp)"
    python3 - "$out/image" "$version" "$layer_binary" <<'PY'
import gzip, io, json, shutil, sys, tarfile
from pathlib import Path
layout, version, dest = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
blob = lambda d: (layout / "blobs" / "sha256" / d.split(":")[1]).read_bytes()
top = json.loads((layout / "index.json").read_text())["manifests"][0]
images = json.loads(blob(top["digest"]))["manifests"]
arm = next(m for m in images if m["platform"]["architecture"] == "arm64")
layer = json.loads(blob(arm["digest"]))["layers"][0]
with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob(layer["digest"])))) as t:
    with t.extractfile("usr/local/bin/mcp-wasm-host") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out)
print(f"release: image index {top['digest']}: "
      f"{', '.join(m['platform']['os'] + '/' + m['platform']['architecture'] for m in images)}", file=sys.stderr)
PY
    if ! cmp -s "$layer_binary" "$arm64"; then
        die "the arm64 image's binary is not $arm64"
    fi
    say "the arm64 image holds $(basename "$arm64")"
    if [[ "$smoke" == 1 ]]; then
        if [[ "$MCP_WASM_HOST_BINFMT_AARCH64" == registered ]]; then
            podman="$("$repo/scripts/setup-image.sh")"
            timed "smoke image linux/arm64 (podman)" "${smoke_cross[@]}" --podman "$podman" \
                --image "$out/image:$version" --arch arm64 --server-arg=--max-instances=4 >&2
        else
            say "podman cannot run the arm64 image here: $MCP_WASM_HOST_BINFMT_AARCH64;" \
                "its binary runs under qemu-aarch64-static instead"
            chmod +x "$layer_binary"
            got="$("$MCP_WASM_HOST_QEMU_AARCH64" "$layer_binary" --version)"
            [[ "${got##* }" == "$version" ]] || die "the arm64 image's binary says $got, not $version"
        fi
    fi
    rm -f "$layer_binary"
fi

# The bundle: every binary built, in one .mcpb (scripts/build-bundle.sh:
# macOS as one universal binary, Linux behind a launcher that picks the
# CPU's), unpacked as a client unpacks it and checked platform by platform
# as a client resolves each platform's command (scripts/lib/check-bundle.py);
# its Windows command serves the smoke test under wine, its Linux one here.
bundle_args=()
for triple in "${triples[@]}"; do
    bundle_args+=("--$triple" "$out/$(binary_name "$triple")")
done
bundle_path="$(mktemp)"
timed "bundle (mcpb pack)" "$repo/scripts/build-bundle.sh" "$out" \
    "${bundle_args[@]}" >"$bundle_path"
bundle="$(cat "$bundle_path")"
rm -f "$bundle_path"
artifacts+=("$(basename "$bundle")")
node="$("$repo/scripts/setup-node.sh")"
unpacked="$(mktemp -d)"
"$node" "$repo/packaging/mcpb/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" unpack "$bundle" "$unpacked/bundle" >&2
commands="$(MCP_WASM_HOST_NODE="$node" python3 "$repo/scripts/lib/check-bundle.py" \
    --objdump "$MCP_WASM_HOST_OBJDUMP" "$unpacked/bundle")"
if [[ "$smoke" == 1 ]]; then
    command_of() {
        python3 -c 'import json, sys; print(json.loads(sys.argv[1]).get(sys.argv[2], ""))' "$commands" "$1"
    }
    win32="$(command_of win32)"
    if [[ -n "$win32" ]]; then
        WINEPREFIX="$MCP_WASM_HOST_WINEPREFIX" timed "smoke bundle win32 (wine)" "${smoke_cross[@]}" \
            --runner "$MCP_WASM_HOST_WINE" --binary "$win32" >&2
    fi
    linux="$(command_of linux)"
    if [[ -n "$linux" ]]; then
        timed "smoke bundle linux (launcher)" "${smoke_cross[@]}" --runner "$(command -v env)" \
            --binary "$linux" >&2
    fi
fi
rm -rf "$unpacked"

# server.json for the MCP Registry, with the bundle's hash (only the bundle
# of every platform is the one it names).
if [[ "$(basename "$bundle")" == "mcp-wasm-host-$version.mcpb" ]]; then
    python3 "$repo/scripts/lib/release-server-json.py" "$repo/server.json" "$bundle" "$out/server.json"
    artifacts+=(server.json)
else
    say "no server.json: $(basename "$bundle") is not the bundle of every platform"
fi

(cd "$out" && sha256sum -- "${artifacts[@]}" >SHA256SUMS)
say "artifacts in $out:"
(cd "$out" && ls -l -- "${artifacts[@]}" SHA256SUMS | awk '{printf "  %-55s %12d bytes\n", $9, $5}') >&2
say "times:"
sed 's/^/  /' "$times" >&2
say "the whole release: $SECONDS s"
echo "$out"
