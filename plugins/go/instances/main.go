// Package main is the `instances` test plugin: one tool that tells what an
// instance started from, which host/tests/all/go_plugins.rs calls on two
// fresh instances to check that the build pre-initialized the plugin
// (package init ran once, at build time) and that each instance still gets
// its own random seeds.
package main

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
)

// initialized is set by init: at build time in a pre-initialized plugin,
// else when each instance starts.
var initialized = time.Now().UnixNano()

// State is instance_state's result. The numbers are strings, as JSON
// numbers lose precision past 2^53.
type State struct {
	Initialized string `json:"initialized" jsonschema:"When package init ran, in nanoseconds since 1970."`
	Random      string `json:"random" jsonschema:"A number from math/rand's default generator."`
}

// NoArgs: instance_state takes no arguments.
type NoArgs struct{}

func instanceState(NoArgs) (State, error) {
	return State{
		Initialized: strconv.FormatInt(initialized, 10),
		Random:      strconv.FormatUint(rand.Uint64(), 10),
	}, nil
}

func init() {
	mcp.Register(instanceState, "When this instance's package init ran, and a random number.",
		mcp.ReadOnly, mcp.ClosedWorld)
}

func main() {}
