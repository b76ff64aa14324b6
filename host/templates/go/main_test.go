package main

// Serves dist/@NAME@.wasm with mcp-wasm-host and calls its tool the way an
// MCP client does: JSON-RPC messages, one per line, on the server's stdin
// and stdout.
//
// Build first (./build.sh). The host is $MCP_WASM_HOST_BIN, else
// mcp-wasm-host on PATH.

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"reflect"
	"testing"
)

// server is `mcp-wasm-host serve` on dist/, initialized.
type server struct {
	in     io.Writer
	out    *bufio.Scanner
	nextID int
}

func start(t *testing.T) *server {
	t.Helper()
	if _, err := os.Stat("dist/@NAME@.wasm"); err != nil {
		t.Fatal("dist/@NAME@.wasm not found: run ./build.sh first")
	}
	host := os.Getenv("MCP_WASM_HOST_BIN")
	if host == "" {
		host = "mcp-wasm-host"
	}
	cmd := exec.Command(host, "serve", "--no-watch", "--log", "warn", "--plugins", "dist")
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot run %s (%v): put mcp-wasm-host on PATH or set MCP_WASM_HOST_BIN", host, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &server{in: in, out: bufio.NewScanner(out)}
	s.out.Buffer(nil, 16<<20)
	client := map[string]any{"name": "@NAME@-test", "version": "0.1.0"}
	init := s.request(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": client})
	if init["result"] == nil {
		t.Fatalf("initialize failed: %v", init)
	}
	s.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return s
}

func (s *server) send(t *testing.T, message map[string]any) {
	t.Helper()
	line, _ := json.Marshal(message)
	if _, err := s.in.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

// request sends a request and returns its response, skipping notifications.
func (s *server) request(t *testing.T, method string, params any) map[string]any {
	t.Helper()
	s.nextID++
	s.send(t, map[string]any{"jsonrpc": "2.0", "id": s.nextID, "method": method, "params": params})
	for s.out.Scan() {
		var message map[string]any
		if err := json.Unmarshal(s.out.Bytes(), &message); err != nil {
			t.Fatalf("not JSON (%v): %s", err, s.out.Text())
		}
		if message["id"] == float64(s.nextID) {
			return message
		}
	}
	t.Fatal("the server exited")
	return nil
}

func (s *server) call(t *testing.T, arguments map[string]any) map[string]any {
	return s.request(t, "tools/call", map[string]any{"name": "number_stats", "arguments": arguments})
}

// isError: a JSON-RPC error, or a tool result with isError.
func isError(response map[string]any) bool {
	result, _ := response["result"].(map[string]any)
	return response["error"] != nil || result["isError"] == true
}

func TestTheHostListsNumberStatsWithItsInputSchema(t *testing.T) {
	tools := start(t).request(t, "tools/list", map[string]any{})
	list, _ := tools["result"].(map[string]any)["tools"].([]any)
	for _, tool := range list {
		if tool := tool.(map[string]any); tool["name"] == "number_stats" {
			required := tool["inputSchema"].(map[string]any)["required"]
			if !reflect.DeepEqual(required, []any{"numbers"}) {
				t.Fatalf("required: %v", required)
			}
			return
		}
	}
	t.Fatalf("number_stats is not listed: %v", tools)
}

func TestNumberStatsCountsAndAveragesNumbers(t *testing.T) {
	response := start(t).call(t, map[string]any{"numbers": []any{1, 2, 2}})
	if isError(response) {
		t.Fatal(response)
	}
	stats := response["result"].(map[string]any)["structuredContent"]
	want := map[string]any{"count": 3.0, "mean": 1.67, "min": 1.0, "max": 2.0}
	if !reflect.DeepEqual(stats, want) {
		t.Fatalf("got %v, want %v", stats, want)
	}
}

func TestNumberStatsRefusesAnEmptyList(t *testing.T) {
	if response := start(t).call(t, map[string]any{"numbers": []any{}}); !isError(response) {
		t.Fatal(response)
	}
}

func TestTheHostRefusesArgumentsThatDoNotFitTheSchema(t *testing.T) {
	if response := start(t).call(t, map[string]any{"numbers": "one, two"}); !isError(response) {
		t.Fatal(response)
	}
}
