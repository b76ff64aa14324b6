"""Unit tests of the Python SDK's store API (sdk-python/mcp_wasm_sdk/store.py)
and of how its build chooses the world (sdk-python/mcp_wasm_sdk_build), in
plain CPython.

The build's part is real: which sources import the store API, and the world
it writes, which componentize-py turns into the bindings the tests run
against. The store behind those bindings is the in-memory `Host` below,
which keeps wasi:keyvalue's semantics (pages of keys behind a cursor, a
compare-and-swap that fails when the key changed since the `cas` read it,
`access-denied` for a bucket it does not grant), so that the paging, the
update loop and the errors are seen doing their work. Through the real host
and binary, host/tests/all/keyvalue_sdk/python.rs runs a plugin built with
the API."""

from __future__ import annotations

import importlib
import sys

import pytest

from sdk_bindings import REPO, sdk_over_stubs

sys.path.insert(0, str(REPO / "sdk-python"))
import mcp_wasm_sdk_build as build  # noqa: E402  (the build machine's package, no bindings needed)

sys.path.remove(str(REPO / "sdk-python"))


@pytest.mark.parametrize("source, imports", [
    ("from mcp_wasm_sdk.store import Bucket", True),
    ("import mcp_wasm_sdk.store", True),
    ("import mcp_wasm_sdk.store as kv", True),
    ("from mcp_wasm_sdk import store", True),
    ("from mcp_wasm_sdk import tool, store as kv", True),
    ("def f():\n    from mcp_wasm_sdk.store import Bucket\n", True),
    ("from mcp_wasm_sdk import Tools, tool", False),
    ("import mcp_wasm_sdk", False),
    ("from .store import Bucket", False),  # the plugin's own module `store`
    ("from mcp_wasm_sdk_store import x", False),
    ("# from mcp_wasm_sdk.store import Bucket\ntext = 'import mcp_wasm_sdk.store'", False),
    ("def broken(:\n    from mcp_wasm_sdk.store import Bucket", False),
])
def test_the_build_sees_which_sources_import_the_store_api(source, imports):
    assert build.imports_store(source) is imports


def test_a_plugin_uses_the_store_when_any_of_its_modules_imports_it(tmp_path):
    (tmp_path / "app.py").write_text("from mcp_wasm_sdk import tool\nfrom . import helpers\n")
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("x = 1\n")
    assert not build.uses_store(tmp_path)
    (tmp_path / "helpers" / "kv.py").write_text("from mcp_wasm_sdk.store import Bucket\n")
    assert build.uses_store(tmp_path)


def test_a_plugin_without_the_store_is_built_against_plugin_full_as_before(tmp_path):
    wit = REPO / "wit"
    assert build.world_wit(wit, tmp_path, False) == (wit, "plugin-full")
    assert not any(tmp_path.iterdir())


def test_the_store_world_adds_wasi_keyvalue_without_touching_the_plugin_wit(tmp_path):
    out, world = build.world_wit(REPO / "wit", tmp_path, True)
    assert world == "plugin-full-store"
    written = (out / "store.wit").read_text()
    declared = (REPO / "wit" / "plugin.wit").read_text()
    assert (out / "deps" / "plugin" / "plugin.wit").read_text() == declared
    package = next(line for line in declared.splitlines() if line.startswith("package "))
    assert f"include mcp-wasm-host:plugin/plugin-full@{package.split('@')[1].rstrip(';')};" in written
    assert "import wasi:keyvalue/store@0.2.0-draft2;" in written
    assert "import wasi:keyvalue/atomics@0.2.0-draft2;" in written
    assert "batch" not in written


# --- the API, against bindings of the store world --------------------------------

@pytest.fixture(scope="module")
def bindings(tmp_path_factory):
    stage = tmp_path_factory.mktemp("store-world")
    wit, world = build.world_wit(REPO / "wit", stage, True)
    with sdk_over_stubs(wit, world, stage / "stubs"):
        yield importlib.import_module("wit_world.imports.store"), importlib.import_module("wit_world.imports.atomics")


class Host:
    """wasi:keyvalue in memory, granting the buckets `granted`: pages of
    `page` keys, and a `meddle(key)` hook run between a cas's read and its
    swap (another call writing the key)."""

    def __init__(self, store, atomics, granted=("default",), page=2):
        self.store, self.atomics = store, atomics
        self.granted, self.page = set(granted), page
        self.data: dict[str, dict[str, bytes]] = {}
        self.meddle = lambda key: None
        self.failing: str | None = None  # an `other` error for every operation

    def install(self, monkeypatch):
        from componentize_py_types import Err
        host = self
        store, atomics = self.store, self.atomics

        def check():
            if host.failing is not None:
                raise Err(store.Error_Other(host.failing))

        class Bucket(store.Bucket):
            def __init__(self, name):
                self.values = host.data.setdefault(name, {})

            def get(self, key):
                check()
                return self.values.get(key)

            def set(self, key, value):
                check()
                self.values[key] = bytes(value)

            def delete(self, key):
                check()
                self.values.pop(key, None)

            def exists(self, key):
                check()
                return key in self.values

            def list_keys(self, cursor):
                check()
                keys = sorted(self.values)
                start = int(cursor) if cursor else 0
                end = start + host.page
                return store.KeyResponse(keys[start:end], str(end) if end < len(keys) else None)

        class Cas(atomics.Cas):
            def __init__(self, bucket, key):
                self.bucket, self.key = bucket, key
                self.seen = bucket.values.get(key)

            @classmethod
            def new(cls, bucket, key):
                check()
                return cls(bucket, key)

            def current(self):
                return self.seen

            def __exit__(self, *exc):
                return None

        def open_(name):
            if name not in host.granted:
                raise Err(store.Error_AccessDenied())
            return Bucket(name)

        def increment(bucket, key, delta):
            check()
            now = int(bucket.values.get(key, b"0")) + delta
            bucket.values[key] = str(now).encode()
            return now

        def swap(cas, value):
            host.meddle(cas.key)
            if cas.bucket.values.get(cas.key) != cas.seen:
                raise Err(atomics.CasError_CasFailed(Cas(cas.bucket, cas.key)))
            cas.bucket.values[cas.key] = bytes(value)

        monkeypatch.setattr(store, "open", open_)
        monkeypatch.setattr(atomics, "increment", increment)
        monkeypatch.setattr(atomics, "Cas", Cas)
        monkeypatch.setattr(atomics, "swap", swap)


@pytest.fixture
def kv(bindings, monkeypatch):
    store, atomics = bindings
    host = Host(store, atomics)
    host.install(monkeypatch)
    api = importlib.import_module("mcp_wasm_sdk.store")
    monkeypatch.setattr(api, "host", host, raising=False)  # for the tests' hooks
    return api


def test_values_are_kept_as_bytes_and_read_back_as_bytes_or_text(kv):
    b = kv.Bucket.open("default")
    assert (b.get("k"), b.get_str("k"), b.exists("k")) == (None, None, False)
    b.set("k", "héllo")
    b.set("raw", bytearray(b"\xff\x00"))
    assert (b.get("k"), b.get_str("k"), b.exists("k"), b.get("raw")) == ("héllo".encode(), "héllo", True, b"\xff\x00")
    with pytest.raises(kv.StoreError, match=r'key-value bucket "default": get "raw": the value is not UTF-8'):
        b.get_str("raw")
    with pytest.raises(TypeError, match="bytes or str, not int"):
        b.set("n", 3)
    b.delete("k")
    b.delete("never")
    assert not b.exists("k")
    assert (b.increment("n"), b.increment("n", 5), b.increment("n", -7)) == (1, 6, -1)


def test_keys_reads_every_page_behind_the_cursor(kv):
    b = kv.Bucket.open("default")
    names = [f"k{i}" for i in range(5)]
    for n in names:
        b.set(n, n)
    assert kv.host.page == 2 and list(b.keys()) == names  # three pages


def test_update_calls_change_again_with_what_another_call_wrote(kv):
    b = kv.Bucket.open("default")
    b.set("log", "a\n")
    writes = iter([b"a\nb\n"])

    def other_call(key):
        value = next(writes, None)
        if value is not None:
            kv.host.data["default"][key] = value

    kv.host.meddle = other_call
    seen = []
    written = b.update("log", lambda old: (seen.append(old), (old or b"") + b"c\n")[1])
    assert seen == [b"a\n", b"a\nb\n"]
    assert written == b"a\nb\nc\n" == b.get("log")
    assert b.update("new", lambda old: "first" if old is None else "again") == b"first"


def test_update_gives_up_after_update_attempts_lost_swaps(kv):
    b = kv.Bucket.open("default")
    kv.host.meddle = lambda key: kv.host.data["default"].__setitem__(key, object())
    calls = []
    with pytest.raises(kv.Contended) as e:
        b.update("hot", lambda old: calls.append(old) or b"x")
    assert len(calls) == kv.UPDATE_ATTEMPTS == 64
    assert str(e.value) == ('key-value bucket "default": "hot" changed under 64 updates in a row '
                            "(other calls are writing it)")


def test_a_bucket_not_granted_fails_the_call_as_denied_naming_the_policy_key(kv, monkeypatch):
    world = importlib.import_module("mcp_wasm_sdk.world")
    registry = importlib.import_module("mcp_wasm_sdk.tool").Registry()
    monkeypatch.setattr(world, "REGISTRY", registry)

    def notes() -> str:
        """The notes."""
        return kv.Bucket.open("notes").get_str("all") or ""

    importlib.import_module("mcp_wasm_sdk").tool(notes, registry=registry)
    with pytest.raises(world.Err) as e:
        world.Tools().call_tool("notes", "{}")
    error = e.value.value
    assert type(error).__name__ == "ToolError_Denied"
    assert error.value == ('this plugin may not open the key-value bucket "notes": the server\'s policy grants it '
                           'with `[plugins.<this plugin>.keyvalue] buckets = ["notes"]`')

    kv.host.granted.add("notes")
    kv.host.failing = "over plugins.p.keyvalue.max_operations (100)"
    with pytest.raises(world.Err) as e:
        world.Tools().call_tool("notes", "{}")
    assert type(e.value.value).__name__ == "ToolError_Failed"
    assert e.value.value.value == ('key-value bucket "notes": get "all": over plugins.p.keyvalue.max_operations (100)')


def test_store_errors_name_the_bucket_and_are_tool_errors(kv):
    errors = importlib.import_module("mcp_wasm_sdk.errors")
    denied = kv.AccessDenied("b")
    assert (denied.bucket, errors.classify(denied)[0]) == ("b", "denied")
    assert errors.classify(kv.NoSuchStore("b")) == ("failed", 'the host has no store for the key-value bucket "b"')
    assert isinstance(kv.Contended("b", "k"), kv.StoreError) and kv.Contended("b", "k").key == "k"
