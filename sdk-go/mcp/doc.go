// Package mcp writes MCP tools for mcp-wasm-host in a few lines of Go.
//
// A plugin is a main package that registers its tools in an init function;
// scripts/build-go-plugin.sh builds it into a WASI 0.2 component:
//
//	package main
//
//	import (
//		"strings"
//
//		"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
//	)
//
//	type ShoutArgs struct {
//		Text  string `json:"text" jsonschema:"The text to shout."`
//		Times int    `json:"times,omitempty" jsonschema:"How many times." minimum:"1" default:"1"`
//	}
//
//	func shout(args ShoutArgs) (string, error) {
//		return strings.Repeat(strings.ToUpper(args.Text)+" ", args.Times), nil
//	}
//
//	func init() { mcp.Register(shout, "Upper-cases a text.", mcp.ReadOnly) }
//
//	func main() {}
//
// Register names the tool after its function (shout); AddTool takes the
// whole Tool instead.
//
// # Schemas
//
// The input schema comes from the arguments struct, the output schema from
// the handler's result type, by encoding/json's rules: the `json` tag names
// a field ("-" drops it), embedded structs' fields are promoted. An input
// field is required unless it is a pointer, omitempty, omitzero or has a
// default. Go types map to JSON Schema types: strings, booleans, integers
// (with their bounds for sized and unsigned ones), numbers, slices and
// arrays, maps, nested structs, time.Time (a date-time string), []byte (a
// base64 string), and interfaces (any value). A type with a method
// `JSONSchema() map[string]any` gives its own schema.
//
// Field tags add to a field's schema: `jsonschema:"..."` is its
// description (as in the official MCP Go SDK), and a tag named after a JSON
// Schema keyword sets that keyword: enum (comma-separated values), minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minLength,
// maxLength, pattern, format, minItems, maxItems, uniqueItems and default
// (applied to the arguments before the call's own). On a slice, enum and
// the number and string keywords constrain the items.
//
// See docs/go.md in the repository for the guide and the reference.
package mcp
