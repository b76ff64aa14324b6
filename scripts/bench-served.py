#!/usr/bin/env python3
"""What a resources/read and a prompts/get cost against a tools/call, served
from the same plugin (the conformance test plugin) in one stdio session of
mcp-wasm-host: best of 3 rounds of N sequential requests each, after 20
warm-up requests, as a ratio to the tool call measured in the same run.

  python3 scripts/bench-served.py [BINARY] [N]

BINARY defaults to target/debug/mcp-wasm-host and N to 300; build first
(`cargo build -p mcp-wasm-host -p test-artifacts`, or `--release`)."""
import json, subprocess, sys, time, tempfile, shutil
d = tempfile.mkdtemp(); shutil.copy("target/plugins/testing/conformance.wasm", d)
BIN = sys.argv[1] if len(sys.argv) > 1 else "target/debug/mcp-wasm-host"
p = subprocess.Popen([BIN, "serve", "--plugins", d], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
i = 0
def req(method, params):
    global i; i += 1
    p.stdin.write(json.dumps({"jsonrpc":"2.0","id":i,"method":method,"params":params})+"\n"); p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i: return m
req("initialize", {"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"0"}})
p.stdin.write(json.dumps({"jsonrpc":"2.0","method":"notifications/initialized"})+"\n"); p.stdin.flush()
req("tools/list", {})
N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
cases = [("tools/call test_simple_text", "tools/call", {"name":"test_simple_text","arguments":{}}),
         ("resources/read test://static-text", "resources/read", {"uri":"test://static-text"}),
         ("prompts/get test_simple_prompt", "prompts/get", {"name":"test_simple_prompt"})]
for label, m, params in cases:
    for _ in range(20): req(m, params)
res = {}
for rnd in range(3):
    for label, m, params in cases:
        t = time.perf_counter()
        for _ in range(N):
            r = req(m, params); assert "result" in r, r
        res.setdefault(label, []).append((time.perf_counter() - t) / N * 1e6)
base = min(res[cases[0][0]])
for label, v in res.items():
    print(f"{label}: {min(v):.0f} us/request (best of 3 x {N}), {min(v)/base:.2f}x the tool call")
p.stdin.close(); p.wait()
