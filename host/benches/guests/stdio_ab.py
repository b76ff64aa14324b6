"""A/B over stdio against the real binary: for each component, its own server
(fresh instance per call, warm compile cache), calls round-robin across the
servers. Prints p50 round trip, the server's minor page faults per call, and
the call receipt's fuel and peak memory; ratios against the first component."""
import json, subprocess, sys, os, tempfile, shutil, statistics, time
host, n = sys.argv[1], int(sys.argv[2]); comps = sys.argv[3:]
text = "The quick brown fox jumps over the lazy dog.\n" * 24
def minflt(pid):
    s = open(f"/proc/{pid}/stat").read(); return int(s[s.rfind(")") + 2:].split()[7])
def rss(pid):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmRSS:"): return int(l.split()[1]) * 1024
S = []
for c in comps:
    d = tempfile.mkdtemp(prefix="gwab-"); os.mkdir(d + "/p"); shutil.copy(c, d + "/p/wordcount.wasm")
    p = subprocess.Popen([host, "serve", "--log", "warn", "--no-watch", "--plugins", d + "/p", "--cache-dir", "/tmp/gw/abcache"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    S.append({"c": c, "p": p, "t": [], "i": 0})
def rpc(s, method, params):
    s["i"] += 1; i = s["i"]; p = s["p"]
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n"); p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i: return m
for s in S:
    rpc(s, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ab", "version": "0"}})
    r = rpc(s, "tools/call", {"name": "word_count", "arguments": {"text": text}})
    s["receipt"] = r["result"]["_meta"]["mcp-wasm-host/receipt"]
    assert r["result"]["structuredContent"] == {"words": 216, "lines": 24, "chars": 1080}, r
    s["idle"] = rss(s["p"].pid)
for s in S: s["f0"] = minflt(s["p"].pid)
for k in range(n):
    for s in S:
        t = time.perf_counter(); r = rpc(s, "tools/call", {"name": "word_count", "arguments": {"text": text}}); s["t"].append(time.perf_counter() - t)
        assert not r["result"].get("isError"), r
for s in S: s["faults"] = (minflt(s["p"].pid) - s["f0"]) / n
b = S[0]; bp = statistics.median(b["t"])
print(f"{'component':<20} {'p50 round trip':>16} {'':>6} {'faults/call':>12} {'fuel':>12} {'':>7} {'peak memory':>12} {'server RSS':>11}")
for s in S:
    p50 = statistics.median(s["t"]); rc = s["receipt"]
    print(f"{os.path.basename(s['c']):<20} {p50*1e6:>13.0f} µs {p50/bp:>5.2f}× {s['faults']:>12.0f} {rc['fuelUsed']:>12} {rc['fuelUsed']/b['receipt']['fuelUsed']:>6.1f}× {rc['peakMemoryBytes']/2**20:>8.1f} MiB {s['idle']/2**20:>7.1f} MiB")
    s["p"].stdin.close(); s["p"].wait()
