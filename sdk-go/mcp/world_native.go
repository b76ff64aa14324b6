//go:build !wasip1

// Stand-ins for the host outside WebAssembly, where the SDK's tests and the
// build's check of the registrations run: logs go to stderr, and requests
// to the client fail as unsupported.

package mcp

import (
	"fmt"
	"os"
)

var levelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func hostLog(level Level, message string) {
	fmt.Fprintf(os.Stderr, "mcp: %s: %s\n", levelNames[level%8], message)
}

func hostProgress(float64, float64, string) {}

func hostSample(SampleRequest) ([]Content, error) {
	return nil, notInHost()
}

func hostElicit(string, string) (bool, string, error) {
	return false, "", notInHost()
}

// outsideMounts: outside WebAssembly no path is outside the sandbox.
func outsideMounts(error) bool { return false }

func notInHost() error {
	return &ClientError{Kind: "unsupported", Message: "not running in mcp-wasm-host"}
}

// checkEagerly: outside WebAssembly (the SDK's tests, the build's check of
// the registrations), AddTool derives the schemas at once, so a type without
// one panics in the plugin's init function.
const checkEagerly = true
