#!/usr/bin/env python3
"""What one wasi:keyvalue get and one set cost inside a tool call, against
the same plugin's call that does no store operation (`ping`), measured in
the same run: on the embedded store and on Redis over loopback, with 1 and
16 calls in flight (stdio, one session; 16 requests are sent before their
answers are read). Then the store's file size and the server's RSS with
100,000 keys of 1 KiB (written 1,000 keys per call with `put-many`).

  python3 scripts/bench-keyvalue.py [BINARY] [N] [REDIS_SERVER]

BINARY defaults to target/debug/mcp-wasm-host, N (calls per round, best of
3 rounds) to 400 and REDIS_SERVER to $MCP_WASM_HOST_REDIS or
/usr/bin/redis-server. The kvnotes test component comes from
target/plugins/testing/kvnotes.wasm (`cargo test --workspace --no-run`
builds it)."""
import os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from stdio_bench import Server, redis_server  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/debug/mcp-wasm-host"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 400
REDIS = sys.argv[3] if len(sys.argv) > 3 else os.environ.get("MCP_WASM_HOST_REDIS", "/usr/bin/redis-server")
TARGET = os.environ.get("CARGO_TARGET_DIR", "target")
COMPONENT = os.path.join(TARGET, "plugins/testing/kvnotes.wasm")

POLICY = """
[server]
{store}

[plugins.kvnotes]
timeout = "120s"

[plugins.kvnotes.keyvalue]
buckets = ["b"]
max_keys = 200000
max_bytes = "1 GiB"
max_batch = 1000
max_operations = 100000
"""


def server(store_line):
    return Server(BIN, COMPONENT, POLICY.format(store=store_line))


def per_call(server, tool, arguments, in_flight):
    """Microseconds per call: best of 3 rounds of N calls, `in_flight` at a time."""
    params = {"name": tool, "arguments": arguments}
    for _ in range(20):
        server.window("tools/call", [params] * in_flight)
    best = None
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(N // in_flight):
            server.window("tools/call", [params] * in_flight)
        us = (time.perf_counter() - t) / (N // in_flight * in_flight) * 1e6
        best = us if best is None else min(best, us)
    return best


def costs(label, server):
    server.call("put", {"bucket": "b", "key": "k", "value": "v" * 100})
    for in_flight in (1, 16):
        base = per_call(server, "ping", {}, in_flight)
        get = per_call(server, "get", {"bucket": "b", "key": "k"}, in_flight)
        put = per_call(server, "put", {"bucket": "b", "key": "k", "value": "v" * 100}, in_flight)
        print(f"{label}, {in_flight:2} in flight: no store op {base:7.0f} us/call; "
              f"one get {get:7.0f} us ({get / base:.2f}x); one set {put:7.0f} us ({put / base:.2f}x)")


def fill(label, server, state_file=None):
    value = "x" * 1024
    for batch in range(100):
        entries = [[f"key{batch * 1000 + j:06}", value] for j in range(1000)]
        server.call("put-many", {"bucket": "b", "entries": entries})
    size = f"store file {os.path.getsize(state_file) / 2**20:.0f} MiB, " if state_file else ""
    print(f"{label}: 100,000 keys of 1 KiB: {size}server RSS {server.rss_kib() / 1024:.0f} MiB")


def main():
    s = server('store = "embedded"')
    costs("embedded", s)
    fill("embedded", s, os.path.join(s.dir, "state", "store.redb"))
    s.close()

    with redis_server(REDIS) as (redis, port):
        s = server(f'store = {{ redis = "redis://127.0.0.1:{port}/0" }}')
        costs("redis", s)
        fill("redis", s)
        with open(f"/proc/{redis.pid}/status") as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
        print(f"redis: redis-server RSS {rss / 1024:.0f} MiB")
        s.close()


main()
