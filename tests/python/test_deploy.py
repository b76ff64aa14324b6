"""The Kubernetes files in deploy/: valid against the Kubernetes schemas, and
true to the server they deploy.

Every resource kustomization.yaml lists is validated with
kubernetes-validate (the Kubernetes API's published JSON schemas, bundled
with the package, so no cluster and no network) in strict mode, which also
refuses fields the schema does not know. Then the Deployment is checked
against the real binary: every flag it passes exists in `serve --help`,
the probes and the scrape annotations point at the server's endpoints and
ports, the grace period outlasts the shutdown timeout, and the memory limit
covers what the engine lets the guests take. And the Deployment runs the
container image scripts/build-image.sh builds (the `image` fixture of
conftest.py): every flag it passes exists in the image's own binary, its
user, ports and volumes are the image's, and every place the server writes
is a volume, as the root filesystem is read-only. The replicas share a store
(issue 46): the policy names it, its password comes from a key of the Secret
(never the ConfigMap), and the Valkey server of valkey.yaml is the one the
URL names, pinned, requiring that same password.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from image_layout import NAME as IMAGE_NAME

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
# The Kubernetes release the files are checked against: the newest the
# pinned kubernetes-validate knows.
K8S_VERSION = kubernetes_validate.utils.latest_version()


def kustomization() -> dict:
    return yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())


def resources() -> list[tuple[str, dict]]:
    out = []
    for name in kustomization()["resources"]:
        for doc in yaml.safe_load_all((DEPLOY / name).read_text()):
            if doc is not None:
                out.append((name, doc))
    return out


def resource(kind: str, name: str | None = None) -> dict:
    found = [
        doc for _, doc in resources() if doc["kind"] == kind and name in (None, doc["metadata"]["name"])
    ]
    assert len(found) == 1, f"expected one {kind} {name or ''} in deploy/, found {len(found)}"
    return found[0]


def server_binary() -> Path:
    explicit = os.environ.get("MCP_WASM_HOST_BIN")
    path = Path(explicit) if explicit else REPO / "target" / "debug" / "mcp-wasm-host"
    if not path.is_file():
        pytest.fail(f"{path} does not exist: build it with `cargo build -p mcp-wasm-host` or set MCP_WASM_HOST_BIN")
    return path


def container() -> dict:
    (c,) = resource("Deployment")["spec"]["template"]["spec"]["containers"]
    return c


def flag_value(args: list[str], flag: str) -> str:
    assert flag in args, f"the Deployment does not pass {flag}"
    return args[args.index(flag) + 1]


MIB = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024}


def mebibytes(quantity: str) -> float:
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi)", quantity)
    assert m, f"unexpected quantity {quantity}"
    return int(m.group(1)) * MIB[m.group(2)]


def test_every_file_is_listed_and_every_resource_is_valid_kubernetes():
    listed = set(kustomization()["resources"])
    on_disk = {p.name for p in DEPLOY.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk, f"deploy/ and kustomization.yaml disagree: {sorted(listed ^ on_disk)}"
    kinds = []
    for name, doc in resources():
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        kinds.append(doc["kind"])
    assert sorted(kinds) == sorted(
        [
            "ServiceAccount",
            "ConfigMap",
            "Secret",
            "Deployment",
            "Service",
            "PodDisruptionBudget",
            # valkey.yaml: the store's server and its Service.
            "StatefulSet",
            "Service",
        ]
    )


@pytest.mark.parametrize(
    "break_it",
    [
        lambda d: d["spec"].__setitem__("replicas", "three"),
        lambda d: d["spec"]["template"]["spec"]["containers"][0].__setitem__("readinessProbe", {"httpGet": {}}),
        lambda d: d["spec"]["template"]["spec"].__setitem__("terminationGracePeriod", 45),
    ],
    ids=["wrong type", "missing required field", "unknown field"],
)
def test_the_validator_refuses_a_broken_deployment(break_it):
    broken = copy.deepcopy(resource("Deployment"))
    break_it(broken)
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


def test_the_deployment_passes_only_flags_the_server_has():
    help_text = subprocess.run(
        [server_binary(), "serve", "--help"], check=True, capture_output=True, text=True
    ).stdout
    known = set(re.findall(r"--[a-z][a-z0-9-]+", help_text))
    c = container()
    assert c["args"][0] == "serve"
    passed = [a for a in c["args"] if a.startswith("--")]
    assert passed, "no flags"
    unknown = [a for a in passed if a not in known]
    assert not unknown, f"flags `serve` does not have: {unknown}"
    # Replicas behind a Service must not depend on sessions, and share the
    # key that signs 2026-07-28 request state.
    assert "--stateless" in c["args"]
    assert "--request-state-key-file" in c["args"]


def test_probes_and_scraping_point_at_the_servers_endpoints():
    c = container()
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    listen = flag_value(c["args"], "--http")
    assert int(listen.rsplit(":", 1)[1]) == ports["http"]
    # With --metrics-addr, the health checks are served there, not on --http.
    metrics = flag_value(c["args"], "--metrics-addr")
    assert "--metrics-allow-remote" in c["args"]
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert c["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    annotations = resource("Deployment")["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert int(annotations["prometheus.io/port"]) == int(metrics.rsplit(":", 1)[1]) == ports["metrics"]
    service = resource("Service", "mcp-wasm-host")
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    labels = resource("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()


def test_the_grace_period_outlasts_the_shutdown_timeout():
    """The kubelet's SIGKILL comes after the drain: --shutdown-timeout for
    the calls and tasks, at most 5 s for the failed tasks' records (and the
    connections closing meanwhile), and a margin for the kubelet."""
    spec = resource("Deployment")["spec"]["template"]["spec"]
    seconds = int(flag_value(container()["args"], "--shutdown-timeout"))
    assert spec["terminationGracePeriodSeconds"] >= seconds + 5 + 5


def test_the_memory_limit_covers_every_instance_at_its_policy_limit():
    import tomllib

    c = container()
    instances = int(flag_value(c["args"], "--max-instances"))
    policy = tomllib.loads(resource("ConfigMap")["data"]["mcp-wasm-host.toml"])
    m = re.fullmatch(r"(\d+) MiB", policy["defaults"]["memory"])
    assert m, policy["defaults"]["memory"]
    guests = instances * int(m.group(1))
    limit = mebibytes(c["resources"]["limits"]["memory"])
    request = mebibytes(c["resources"]["requests"]["memory"])
    # The host itself: about 30 MiB resident plus compiled code and buffers.
    assert limit >= guests + 256, f"limit {limit} MiB < {instances} x {m.group(1)} MiB + 256 MiB"
    assert request <= limit


def test_secrets_are_mounted_as_files_the_policy_reads():
    spec = resource("Deployment")["spec"]["template"]["spec"]
    (volume,) = [v for v in spec["volumes"] if "secret" in v]
    (mount,) = [m for m in container()["volumeMounts"] if m["name"] == volume["name"]]
    assert mount["readOnly"] is True
    assert volume["secret"]["defaultMode"] == 0o400
    keys = set(resource("Secret")["stringData"])
    policy = resource("ConfigMap")["data"]["mcp-wasm-host.toml"]
    files = re.findall(r'file = "([^"]+)"', policy)
    assert files, "the policy reads no secret file"
    for f in files:
        assert f.startswith(mount["mountPath"] + "/") and f.rsplit("/", 1)[1] in keys, f
    args = container()["args"]
    for flag in ("--auth-token-file", "--request-state-key-file"):
        path = flag_value(args, flag)
        assert path.startswith(mount["mountPath"] + "/") and path.rsplit("/", 1)[1] in keys, path


def policy() -> dict:
    import tomllib

    return tomllib.loads(resource("ConfigMap")["data"]["mcp-wasm-host.toml"])


def secret_key_read_by(spec: dict, container: dict, path: str | None = None, env: str | None = None) -> str:
    """The key of the Secret `mcp-wasm-host` that a container reads, as a
    file under a Secret volume (`path`) or as a variable (`env`)."""
    if path is not None:
        for mount in container["volumeMounts"]:
            volume = next(v for v in spec["volumes"] if v["name"] == mount["name"])
            if "secret" in volume and path.startswith(mount["mountPath"].rstrip("/") + "/"):
                assert volume["secret"]["secretName"] == "mcp-wasm-host", volume
                return path[len(mount["mountPath"].rstrip("/")) + 1 :]
        pytest.fail(f"{path} is on no Secret volume")
    (var,) = [e for e in container.get("env", []) if e["name"] == env]
    ref = var["valueFrom"]["secretKeyRef"]
    assert ref["name"] == "mcp-wasm-host", ref
    return ref["key"]


def test_the_replicas_share_a_store_whose_password_is_a_secret():
    """More than one replica needs the store (tasks, limits and sessions
    are shared there): the policy names a Redis store, its URL carries no
    password, and the password the server reads is a key the Secret has,
    whose value the ConfigMap never holds."""
    from urllib.parse import urlsplit

    deployment = resource("Deployment")
    assert deployment["spec"]["replicas"] > 1
    store = policy()["server"]["store"]
    assert isinstance(store, dict) and "redis" in store, f"replicas without a shared store: {store!r}"
    url = urlsplit(store["redis"])
    assert url.scheme in ("redis", "rediss", "valkey", "valkeys"), url
    assert url.password is None, "the store URL holds a password: it belongs in the Secret"
    assert ("password_file" in store) != ("password_env" in store), store
    spec = deployment["spec"]["template"]["spec"]
    key = secret_key_read_by(spec, container(), path=store.get("password_file"), env=store.get("password_env"))
    secret = resource("Secret")["stringData"]
    assert key in secret, f"the Secret has no key {key}"
    configmap = yaml.safe_dump(resource("ConfigMap"))
    assert secret[key] not in configmap, "the store's password is in the ConfigMap"


def test_the_valkey_manifest_is_the_store_the_policy_names():
    """valkey.yaml's Service is the host and port of the policy's store URL,
    its server requires the password the host reads (the same Secret key),
    its image is pinned to an exact release, and it refuses writes when full
    rather than evicting leases and buckets."""
    from urllib.parse import urlsplit

    store = policy()["server"]["store"]
    url = urlsplit(store["redis"])
    service = resource("Service", "valkey")
    statefulset = resource("StatefulSet", "valkey")
    assert url.hostname == service["metadata"]["name"]
    (port,) = service["spec"]["ports"]
    assert (url.port or 6379) == port["port"]
    pod = statefulset["spec"]["template"]
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    (valkey,) = pod["spec"]["containers"]
    assert port["targetPort"] in [p["name"] for p in valkey["ports"]]
    # An exact release (x.y.z) or a digest, never a moving tag.
    image = valkey["image"]
    assert re.search(r"(:\d+\.\d+\.\d+(-[a-z0-9.]+)?|@sha256:[0-9a-f]{64})$", image), image
    args = valkey["args"]
    # The password: Kubernetes expands $(VAR) from the container's env,
    # which reads the key the host reads.
    m = re.fullmatch(r"\$\((\w+)\)", flag_value(args, "--requirepass"))
    assert m, args
    deployment = resource("Deployment")["spec"]["template"]["spec"]
    host_key = secret_key_read_by(
        deployment, container(), path=store.get("password_file"), env=store.get("password_env")
    )
    assert secret_key_read_by(pod["spec"], valkey, env=m.group(1)) == host_key
    assert flag_value(args, "--maxmemory-policy") == "noeviction"
    maxmemory = re.fullmatch(r"(\d+)mb", flag_value(args, "--maxmemory"))
    assert maxmemory and int(maxmemory.group(1)) < mebibytes(valkey["resources"]["limits"]["memory"]), args
    assert valkey["securityContext"]["readOnlyRootFilesystem"] is True
    assert under(flag_value(args, "--dir"), valkey["volumeMounts"])


def test_the_policy_in_the_configmap_is_one_the_server_accepts(tmp_path):
    """The server reads the ConfigMap's files as the pods mount them: the
    policy parses, its keys exist and its values are in range (`check`
    refuses a policy with an error, as `serve` does). A copy with a typo
    shows the check can fail."""
    data = resource("ConfigMap")["data"]
    for name, text in data.items():
        (tmp_path / name).write_text(text)
    empty = tmp_path / "plugins"
    empty.mkdir()

    def check(policy: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [server_binary(), "check", empty, "--config", policy],
            capture_output=True,
            text=True,
            env={**os.environ, "RUST_BACKTRACE": "0"},
        )

    good = check(tmp_path / "mcp-wasm-host.toml")
    assert good.returncode == 0, good.stderr
    typo = tmp_path / "typo.toml"
    typo.write_text(data["mcp-wasm-host.toml"].replace("max_concurrent_calls", "max_concurent_calls"))
    bad = check(typo)
    assert bad.returncode != 0 and "max_concurent_calls" in bad.stderr, bad.stderr
    # A password in the store's URL is refused, and not repeated.
    leaky = tmp_path / "leaky.toml"
    leaky.write_text(data["mcp-wasm-host.toml"].replace("redis://valkey", "redis://:hunter2-secret@valkey"))
    bad = check(leaky)
    assert bad.returncode != 0 and "store.redis" in bad.stderr, bad.stderr
    assert "hunter2-secret" not in bad.stderr, bad.stderr


def serve_flags(binary: Path) -> set[str]:
    help_text = subprocess.run([binary, "serve", "--help"], check=True, capture_output=True, text=True).stdout
    return set(re.findall(r"--[a-z][a-z0-9-]+", help_text))


def under(path: str, mounts: list[dict]) -> dict | None:
    """The volumeMount that holds `path`, if any."""
    for m in mounts:
        if path == m["mountPath"] or path.startswith(m["mountPath"].rstrip("/") + "/"):
            return m
    return None


def test_the_deployment_runs_the_image_with_what_the_image_has(image, tmp_path):
    """Flags from the image's own binary (not the workspace build), the
    user, ports and volumes from the image's config; every path the server
    reads is mounted, and every path it writes is a writable volume."""
    c = container()
    spec = resource("Deployment")["spec"]["template"]["spec"]
    assert c["image"] == IMAGE_NAME
    config = image.config["config"]

    binary = image.extract_binary(tmp_path / "mcp-wasm-host")
    passed = [a for a in c["args"] if a.startswith("--")]
    unknown = [a for a in passed if a not in serve_flags(binary)]
    assert not unknown, f"flags the image's `serve` does not have: {unknown}"
    assert c["args"][0] == config["Cmd"][0] == "serve"

    # The user: the image's, non-root, on a read-only root filesystem.
    uid, gid = (int(x) for x in config["User"].split(":"))
    assert (spec["securityContext"]["runAsUser"], spec["securityContext"]["runAsGroup"]) == (uid, gid)
    assert uid != 0 and spec["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["readOnlyRootFilesystem"] is True

    # The ports: each one the image exposes.
    exposed = {int(p.split("/")[0]) for p in config["ExposedPorts"]}
    assert {p["containerPort"] for p in c["ports"]} <= exposed, exposed

    # The volumes: each of the image's is mounted (nothing is left on the
    # read-only root); the plugins are where the image's config says.
    mounts = c["volumeMounts"]
    for volume in config["Volumes"]:
        assert any(m["mountPath"] == volume for m in mounts), f"the image's volume {volume} is not mounted"
    env = dict(e.split("=", 1) for e in config["Env"])
    assert flag_value(c["args"], "--plugins") == env["MCP_WASM_HOST_PLUGINS"]
    for flag in ("--config", "--plugins", "--auth-token-file", "--request-state-key-file"):
        path = flag_value(c["args"], flag)
        assert under(path, mounts), f"{flag} {path} is on no volume"
    # The cache is written: a writable volume, and below its mount point
    # (an emptyDir's own directory is root's, mode 0777, which the compile
    # cache refuses), as the image's default is.
    cache = flag_value(c["args"], "--cache-dir")
    mount = under(cache, mounts)
    assert mount and not mount.get("readOnly") and cache != mount["mountPath"], cache
    assert under(env["MCP_WASM_HOST_CACHE_DIR"], [{"mountPath": v} for v in config["Volumes"]])


def test_the_pods_go_only_to_nodes_the_image_index_has_an_image_for():
    """The image index holds one image per platform build_image.py knows
    (linux/amd64 and linux/arm64 in a release): the deployment requires a
    node of one of those, and no other."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("build_image", REPO / "packaging" / "image" / "build_image.py")
    build_image = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_image)
    pod = resource("Deployment")["spec"]["template"]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert len(terms) == 1, terms
    required = {e["key"]: (e["operator"], sorted(e["values"])) for e in terms[0]["matchExpressions"]}
    assert required == {
        "kubernetes.io/os": ("In", ["linux"]),
        "kubernetes.io/arch": ("In", sorted(build_image.MACHINES)),
    }, required
