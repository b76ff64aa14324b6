#!/usr/bin/env python3
"""What a rate limit costs a tool call, in the process and in a Redis store
that replicas share, against the same call with no limit, measured in the
same run: the fnv test plugin's `hash`, over stdio (one session), with 1 and
16 calls in flight (16 requests are sent before their answers are read).
Four servers: no store and no limit; a limit counted in the process; a
Redis store and no limit (a plain call, which should cost nothing more);
a Redis store and a limit (one `count_in_window` round trip per call). The
limit is high enough never to refuse. For each: calls/s and the median
latency, best of 3 rounds of N calls.

  python3 scripts/bench-limits.py [BINARY] [N] [REDIS_SERVER]

BINARY defaults to target/debug/mcp-wasm-host, N to 800 and REDIS_SERVER to
$MCP_WASM_HOST_REDIS or /usr/bin/redis-server. The fnv test component comes
from target/plugins/testing/fnv.wasm (`cargo test --workspace --no-run`
builds it)."""
import os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from stdio_bench import Server, redis_server  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/debug/mcp-wasm-host"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 800
REDIS = sys.argv[3] if len(sys.argv) > 3 else os.environ.get("MCP_WASM_HOST_REDIS", "/usr/bin/redis-server")
TARGET = os.environ.get("CARGO_TARGET_DIR", "target")
COMPONENT = os.path.join(TARGET, "plugins/testing/fnv.wasm")
CALL = {"name": "hash", "arguments": {"text": "abc"}}


def measure(server, in_flight):
    """(calls/s, median latency in µs): best of 3 rounds of N calls."""
    for _ in range(20):
        server.window("tools/call", [CALL] * in_flight)
    best = None
    for _ in range(3):
        server.latencies = []
        t = time.perf_counter()
        for _ in range(N // in_flight):
            server.window("tools/call", [CALL] * in_flight)
        latencies = sorted(server.latencies)
        rate = len(latencies) / (time.perf_counter() - t)
        p50 = latencies[len(latencies) // 2] * 1e6
        if best is None or rate > best[0]:
            best = (rate, p50)
    return best


def main():
    limit = "[plugins.fnv]\nrate_limit = 4000000000\n"
    with redis_server(REDIS) as (_, port):
        store = f'[server]\nstore = {{ redis = "redis://127.0.0.1:{port}/0" }}\n'
        cases = [("no store, no limit", ""), ("no store, rate_limit", limit),
                 ("redis store, no limit", store), ("redis store, rate_limit", store + limit)]
        for label, policy in cases:
            server = Server(BIN, COMPONENT, policy)
            one = measure(server, 1)
            many = measure(server, 16)
            server.close()
            print(f"{label:26} 1 in flight: {one[0]:6.0f} calls/s, p50 {one[1]:6.0f} us; "
                  f"16 in flight: {many[0]:6.0f} calls/s, p50 {many[1]:6.0f} us")


main()
