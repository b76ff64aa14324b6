// Package main is a component from plain WIT (wit/plain.wit) in Go, with no
// SDK: it knows nothing of mcp-wasm-host. scripts/build-go-plugin.sh
// generates the bindings from the WIT with wit-bindgen's Go generator
// (through sdk-tool): the module plaingo/wit, whose wit_exports package
// holds the //go:wasmexport functions and calls the functions of
// export_wit_world (the world's own exports) and
// export_demo_plaingo_geometry (the interface's) here.
// tests/python/test_plain_wit.py builds it and serves it with the real
// binary as a generic component.
package main

import _ "plaingo/wit/wit_exports"

func main() {}
