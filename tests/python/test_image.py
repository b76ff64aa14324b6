"""The container image (scripts/build-image.sh, packaging/image/build_image.py):
built from the installed static binary, reproducible, pushed to a real OCI
registry and pulled back unchanged, and run by a real container runtime.

* The image holds the static binary (byte for byte the one
  scripts/install-host.sh installs), Debian's CA bundle, /etc/passwd and
  /etc/group, and nothing that runs a shell; its config runs as 65532:65532
  with /plugins and the cache as volumes and carries the MCP Registry's
  ownership label and the OCI labels.
* Two builds from the same inputs give the same manifest digest; another
  binary or another SOURCE_DATE_EPOCH gives another.
* skopeo copies the layout to Debian's docker-registry (the one the other
  registry tests run, on 127.0.0.1) and back; the registry serves the same
  manifest digest and the copy back holds the same blobs.
* podman 4.3.1 pulls it from that registry and runs it with a read-only root
  filesystem, the example `text` plugin mounted read-only at /plugins and a
  named volume for the cache: the official MCP Python SDK lists its tools
  and calls one over Streamable HTTP. Run without a plugins volume, the
  server says what to do (exit 1 when /plugins is missing; a warning when
  the runtime gave it an empty anonymous volume).

What the runtime needs on these machines (podman runs as root here): the
OCI runtime runc, as crun 1.8.1 stops on the hybrid cgroup hierarchy
("cgroups in hybrid mode not supported, drop all controllers from
cgroupv2"); `--ulimit nofile=… --ulimit nproc=…` below the hard limits, as
podman's defaults (1048576) are above them and the machine withholds
CAP_SYS_RESOURCE ("setrlimit `RLIMIT_NOFILE`: Operation not permitted");
and `--network host`, so the test's traffic stays on 127.0.0.1 without a
CNI network. docs/deploy.md says the same.

Needs MCP_WASM_HOST_REGISTRY (scripts/setup-registry.sh), podman, skopeo and
runc (MCP_WASM_HOST_PODMAN=$(scripts/setup-image.sh)), the Python SDK, and the
example plugins (scripts/build-plugins.sh); scripts/test.sh provides them all.
Under CI (MCP_WASM_HOST_REQUIRE_ALL=1 or CI=true) a missing tool fails the
test; elsewhere it skips (conftest.py's `toolchain`).
"""

from __future__ import annotations

import hashlib
import queue
import shutil
import socket
import subprocess
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from image_layout import REPO, VERSION, Layout, build, epoch_of

REPOSITORY = "mcp-wasm-host/mcp-wasm-host"
UID = 65532
# Below this machine's hard limits (see the docstring).
ULIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]
# A bound on each wait for the server (its first start compiles the plugin);
# the test waits on its log lines, never on time.
STARTUP_SECONDS = 300


def test_the_image_holds_the_static_binary_and_no_shell(image: Layout, installed_host: Path):
    with image.layer() as tar:
        members = {m.name: m for m in tar.getmembers()}
        binary = tar.extractfile("usr/local/bin/mcp-wasm-host").read()
        passwd = tar.extractfile("etc/passwd").read().decode()
        bundle = tar.extractfile("etc/ssl/certs/ca-certificates.crt").read().decode()
    assert binary == installed_host.read_bytes()
    assert sorted(members) == sorted([
        "etc", "etc/group", "etc/mcp-wasm-host", "etc/passwd", "etc/ssl", "etc/ssl/certs",
        "etc/ssl/certs/ca-certificates.crt", "usr", "usr/local", "usr/local/bin",
        "usr/local/bin/mcp-wasm-host", "var", "var/cache", "var/cache/mcp-wasm-host",
    ]), "the image holds only the server and what it reads (no shell, no C library)"
    assert list(members) == sorted(members), "tar entries are sorted"
    assert {m.mtime for m in members.values()} == {epoch_of(image)}, "every mtime is the epoch"
    assert members["usr/local/bin/mcp-wasm-host"].mode == 0o755 and members["usr/local/bin/mcp-wasm-host"].uid == 0
    cache = members["var/cache/mcp-wasm-host"]
    assert (cache.uid, cache.gid, cache.mode) == (UID, UID, 0o700)
    assert f":{UID}:{UID}:" in passwd
    assert bundle.count("-----BEGIN CERTIFICATE-----") > 100


def test_the_image_config_runs_the_server_unprivileged_with_its_volumes_and_labels(image: Layout):
    c = image.config
    assert (c["os"], c["architecture"]) == ("linux", "amd64")
    cfg = c["config"]
    assert cfg["User"] == f"{UID}:{UID}"
    assert cfg["Entrypoint"] == ["/usr/local/bin/mcp-wasm-host"]
    assert cfg["Cmd"][0] == "serve"
    assert set(cfg["Volumes"]) == {"/plugins", "/var/cache/mcp-wasm-host"}
    assert set(cfg["ExposedPorts"]) == {"8080/tcp", "9090/tcp"}
    env = dict(e.split("=", 1) for e in cfg["Env"])
    assert env["MCP_WASM_HOST_PLUGINS"] == "/plugins"
    assert env["MCP_WASM_HOST_CACHE_DIR"].startswith("/var/cache/mcp-wasm-host/")
    labels = cfg["Labels"]
    assert labels["io.modelcontextprotocol.server.name"] == "io.github.mcp-wasm-host/mcp-wasm-host"
    assert labels["org.opencontainers.image.version"] == VERSION
    assert labels["org.opencontainers.image.source"] == "https://github.com/mcp-wasm-host/mcp-wasm-host"
    assert labels["org.opencontainers.image.licenses"] == "Apache-2.0"


def test_the_same_inputs_give_the_same_digest_and_other_inputs_another(
        image: Layout, installed_host: Path, tmp_path: Path):
    seconds = str(epoch_of(image))
    again = build(tmp_path / "again", installed_host, seconds)
    assert again.digest == image.digest
    assert sorted(p.name for p in (again.path / "blobs" / "sha256").iterdir()) == \
        sorted(p.name for p in (image.path / "blobs" / "sha256").iterdir())
    later = build(tmp_path / "later", installed_host, str(int(seconds) + 1))
    assert later.digest != image.digest
    other = tmp_path / "other-binary"
    other.write_bytes(installed_host.read_bytes() + b"\0")
    assert build(tmp_path / "other", other, seconds).digest != image.digest


# ------------------------------------------------------------ the registry


@pytest.fixture(scope="module")
def registry(tmp_path_factory, toolchain):
    binary = toolchain("MCP_WASM_HOST_REGISTRY", "setup-registry.sh")
    dir = tmp_path_factory.mktemp("registry")
    port = free_port()
    config = dir / "config.yml"
    config.write_text(
        f"version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: {dir / 'storage'}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    proc = subprocess.Popen([binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    lines = lines_of(proc.stderr)
    try:
        # The registry logs `listening on 127.0.0.1:PORT` once it is bound.
        wait_for(lines, f"listening on 127.0.0.1:{port}", "the registry", STARTUP_SECONDS)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lines_of(stream) -> queue.Queue:
    """The lines of `stream`, read on a thread; None at its end."""
    q: queue.Queue = queue.Queue()

    def pump():
        for line in stream:
            q.put(line)
        q.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return q


def wait_for(lines: queue.Queue, needle: str, who: str, seconds: float) -> tuple[str, list[str]]:
    """The first line holding `needle`, and every line read so far."""
    seen: list[str] = []
    while True:
        try:
            line = lines.get(timeout=seconds)
        except queue.Empty:
            raise AssertionError(f"{who} did not log {needle!r} in {seconds} s:\n{''.join(seen)}") from None
        if line is None:
            raise AssertionError(f"{who} exited before logging {needle!r}:\n{''.join(seen)}")
        seen.append(line)
        if needle in line:
            return line, seen


def rest(lines: queue.Queue) -> str:
    """Every line until the stream ends (the process exited)."""
    out = []
    while (line := lines.get(timeout=STARTUP_SECONDS)) is not None:
        out.append(line)
    return "".join(out)


@pytest.fixture(scope="module")
def pushed(image: Layout, registry: str, toolchain) -> str:
    skopeo = toolchain(None, "setup-image.sh", "skopeo")
    ref = f"{registry}/{REPOSITORY}:{VERSION}"
    subprocess.run([skopeo, "copy", "--quiet", "--dest-tls-verify=false", f"oci:{image.path}:{VERSION}",
                    f"docker://{ref}"], check=True)
    return ref


def test_pushed_to_the_registry_and_pulled_back_with_the_same_digest(image: Layout, pushed: str, tmp_path: Path,
                                                                    toolchain):
    skopeo = toolchain(None, "setup-image.sh", "skopeo")
    raw = subprocess.run([skopeo, "inspect", "--raw", "--tls-verify=false", f"docker://{pushed}"],
                         check=True, capture_output=True).stdout
    assert "sha256:" + hashlib.sha256(raw).hexdigest() == image.digest
    pulled = Layout(tmp_path / "pulled")
    subprocess.run([skopeo, "copy", "--quiet", "--src-tls-verify=false", f"docker://{pushed}",
                    f"oci:{pulled.path}:{VERSION}"], check=True)
    assert pulled.digest == image.digest
    for blob in (image.path / "blobs" / "sha256").iterdir():
        assert (pulled.path / "blobs" / "sha256" / blob.name).read_bytes() == blob.read_bytes()


# ------------------------------------------------------------- the runtime


@dataclass
class Podman:
    binary: str
    root: Path
    image: str

    def cmd(self, *args: str) -> list[str]:
        return [self.binary, "--root", str(self.root / "storage"), "--runroot", str(self.root / "run"),
                "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file", *args]

    def run(self, *args: str, name: str, **kw) -> subprocess.Popen:
        """`podman run` of the image with a read-only root, attached: its
        stderr (the server's log) is piped."""
        return subprocess.Popen(
            self.cmd("run", "--rm", "--name", name, "--network", "host", "--read-only", *ULIMITS, *args),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)

    def remove(self, name: str) -> None:
        subprocess.run(self.cmd("rm", "--force", "--ignore", "--time", "10", name), capture_output=True)


@pytest.fixture(scope="module")
def podman(pushed: str, image: Layout, tmp_path_factory, toolchain) -> Podman:
    """podman with storage of its own, holding the image pulled from the registry."""
    binary = toolchain("MCP_WASM_HOST_PODMAN", "setup-image.sh", "podman")
    toolchain(None, "setup-image.sh", "runc")
    p = Podman(binary, tmp_path_factory.mktemp("podman"), pushed)
    subprocess.run(p.cmd("pull", "--quiet", "--tls-verify=false", pushed), check=True, stdout=subprocess.DEVNULL)
    digest = subprocess.run(p.cmd("image", "inspect", "--format", "{{.Digest}}", pushed),
                            check=True, capture_output=True, text=True).stdout.strip()
    assert digest == image.digest
    yield p
    subprocess.run(p.cmd("volume", "prune", "--force"), capture_output=True)


@pytest.fixture(scope="module")
def plugins(tmp_path_factory) -> Path:
    """A directory with the example `text` plugin, readable by the image's user."""
    built = subprocess.run([str(REPO / "scripts" / "build-plugins.sh")], cwd=REPO, check=True,
                           stdout=subprocess.PIPE, text=True).stdout.split()[0]
    out = tmp_path_factory.mktemp("plugins")
    shutil.copy(Path(built) / "text.wasm", out / "text.wasm")
    out.chmod(0o755)
    (out / "text.wasm").chmod(0o644)
    return out


async def list_and_call(url: str):
    with anyio.fail_after(120):
        async with streamable_http_client(url) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                result = await session.call_tool("regex_find", {"text": "a1 b22 c333", "pattern": "[0-9]+"})
                return tools, result


@pytest.mark.parametrize("cache", ["named volume", "emptyDir"])
def test_podman_runs_the_image_read_only_and_it_serves_a_call_over_http(
        podman: Podman, plugins: Path, cache: str, tmp_path: Path):
    """The cache volume is a podman named volume (which copies the image's
    /var/cache/mcp-wasm-host, 65532's, into it), or a directory as
    Kubernetes makes an emptyDir: root's, mode 0777."""
    name = f"mcp-wasm-host-test-{uuid.uuid4().hex[:8]}"
    volume = f"{name}-cache"
    if cache == "emptyDir":
        volume = str(tmp_path / "emptydir")
        Path(volume).mkdir()
        Path(volume).chmod(0o777)
    proc = podman.run(
        "--volume", f"{plugins}:/plugins:ro", "--volume", f"{volume}:/var/cache/mcp-wasm-host",
        podman.image, "serve", "--http", "127.0.0.1:0", "--log-format", "text",
        name=name,
    )
    lines = lines_of(proc.stderr)
    try:
        line, seen = wait_for(lines, "listening on http://", "the server in the container", STARTUP_SECONDS)
        url = line.split("listening on ", 1)[1].split()[0]
        tools, result = anyio.run(list_and_call, url)
        names = sorted(t.name for t in tools)
        assert names == ["diff", "regex_find", "regex_replace", "text_stats"], names
        assert not result.is_error, result
        assert result.structured_content["total"] == 3, result
        log = "".join(seen)
        # The image's cache volume is writable by its user: the compile
        # cache is used, and nothing asked to write to the read-only root.
        assert "without a compile cache" not in log, log
        assert "Read-only file system" not in log, log
    finally:
        podman.remove(name)
        proc.wait(timeout=60)
        if cache == "named volume":
            subprocess.run(podman.cmd("volume", "rm", "--force", volume), capture_output=True)


@pytest.mark.parametrize("how", ["missing", "empty"])
def test_the_image_run_without_its_plugins_volume_says_what_to_do(podman: Podman, how: str):
    """`missing`: no volume at /plugins at all (`--image-volume ignore`, as
    on Kubernetes without a volumeMount): the server exits 1 at once.
    `empty`: podman's anonymous volume for the image's VOLUME /plugins: the
    server warns and serves no tool until one is added."""
    name = f"mcp-wasm-host-test-{uuid.uuid4().hex[:8]}"
    image_volume = ["--image-volume", "ignore"] if how == "missing" else []
    proc = podman.run(*image_volume, podman.image, "serve", "--http", "127.0.0.1:0", "--log-format", "text",
                      name=name)
    lines = lines_of(proc.stderr)
    try:
        if how == "missing":
            log = rest(lines)
            assert proc.wait(timeout=60) == 1, log
            assert "the plugins directory /plugins does not exist: " in log, log
        else:
            _, seen = wait_for(lines, "no plugin components (*.wasm) in /plugins", "the server", STARTUP_SECONDS)
            log = "".join(seen)
        assert "mount your plugins there: `podman run -v ./plugins:/plugins:ro" in log, log
    finally:
        podman.remove(name)
        proc.wait(timeout=60)


@pytest.mark.parametrize("bundle", ["the image's", "none"])
def test_fetching_a_source_over_https_finds_the_images_ca_certificates(podman: Podman, bundle: str):
    """Fetching a plugin source over HTTPS verifies the server against the
    system's CA certificates (reqwest's platform verifier; the rest of the
    host's TLS has webpki's roots compiled in). With the image's bundle the
    fetch gets as far as connecting (to a closed port on 127.0.0.1, so
    nothing leaves the machine); with the bundle hidden, it stops at the
    missing certificates, which shows the bundle is what it reads."""
    name = f"mcp-wasm-host-test-{uuid.uuid4().hex[:8]}"
    hide = ["--volume", "/dev/null:/etc/ssl/certs/ca-certificates.crt:ro"] if bundle == "none" else []
    proc = podman.run(*hide, podman.image, "pull", f"https://127.0.0.1:{free_port()}/p.wasm",
                      "--sha256", "0" * 64, name=name)
    try:
        log = rest(lines_of(proc.stderr))
        assert proc.wait(timeout=60) != 0, log
        if bundle == "none":
            assert "No CA certificates were loaded from the system" in log, log
        else:
            assert "No CA certificates" not in log and "127.0.0.1" in log, log
    finally:
        podman.remove(name)
        proc.wait(timeout=60)
