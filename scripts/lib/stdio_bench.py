"""What the stdio benchmarks of scripts/ share: a server of one test plugin
under a policy, one MCP session over stdio with N requests sent before
their answers are read, and a throwaway redis-server on 127.0.0.1."""
import contextlib, json, os, shutil, socket, subprocess, tempfile, time


class Server:
    """`mcp-wasm-host serve` (BIN) of `component` under `policy`, in a
    temporary directory, with one initialized stdio session."""

    def __init__(self, binary, component, policy):
        self.dir = tempfile.mkdtemp()
        os.mkdir(os.path.join(self.dir, "plugins"))
        shutil.copy(component, os.path.join(self.dir, "plugins"))
        with open(os.path.join(self.dir, "mcp-wasm-host.toml"), "w") as f:
            f.write(policy)
        self.p = subprocess.Popen(
            [binary, "serve", "--plugins", "plugins", "--config", "mcp-wasm-host.toml",
             "--state-dir", "state", "--no-cache"],
            cwd=self.dir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        self.i = 0
        self.latencies = []
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.request("tools/list", {})

    def send(self, message):
        self.p.stdin.write(json.dumps(message) + "\n")

    def request(self, method, params):
        return self.window(method, [params])[0]

    def window(self, method, many):
        """Sends every request of `many`, then reads their answers (each
        one's latency, in seconds, goes to `self.latencies`)."""
        sent = {}
        for params in many:
            self.i += 1
            self.send({"jsonrpc": "2.0", "id": self.i, "method": method, "params": params})
            sent[self.i] = time.perf_counter()
        self.p.stdin.flush()
        answers = {}
        while len(answers) < len(sent):
            m = json.loads(self.p.stdout.readline())
            if "id" in m and m["id"] in sent:
                answers[m["id"]] = m
                self.latencies.append(time.perf_counter() - sent[m["id"]])
        out = [answers[i] for i in sent]
        for m in out:
            result = m.get("result", {})
            assert "result" in m and not result.get("isError"), m
        return out

    def call(self, tool, arguments):
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        self.p.stdin.close()
        self.p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@contextlib.contextmanager
def redis_server(binary):
    """A redis-server with no persistence on a free port: yields its
    process and port once it accepts connections."""
    port = free_port()
    redis_dir = tempfile.mkdtemp()
    redis = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", redis_dir],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield redis, port
    finally:
        redis.terminate()
        redis.wait()
        shutil.rmtree(redis_dir, ignore_errors=True)
