// Package main is the `sdkstore` test plugin: a counter and a notes tool
// written with the Go SDK's store package over wasi:keyvalue, as
// docs/writing-plugins.md's "Remembering things" writes them.
// host/tests/all/keyvalue_sdk/go.rs calls them through the real binary.
package main

import (
	"fmt"
	"strings"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/store"
)

// Count the calls of this tool, across calls and restarts.
func count(struct{}) (string, error) {
	b, err := store.Open("default")
	if err != nil {
		return "", err
	}
	calls, err := b.Increment("calls", 1)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("called %d times", calls), nil
}

// NoteArgs are add_note's arguments.
type NoteArgs struct {
	Text string `json:"text" jsonschema:"The note."`
}

// Add a note.
func addNote(args NoteArgs) (string, error) {
	b, err := store.Open("notes")
	if err != nil {
		return "", err
	}
	_, err = b.Update("all", func(old []byte) []byte {
		return append(old, args.Text+"\n"...)
	})
	if err != nil {
		return "", err
	}
	return "noted", nil
}

// The notes, one a line, oldest first.
func notes(struct{}) (string, error) {
	b, err := store.Open("notes")
	if err != nil {
		return "", err
	}
	all, _, err := b.GetString("all")
	return all, err
}

// PutArgs are put's arguments.
type PutArgs struct {
	Key   string `json:"key" jsonschema:"The key."`
	Value string `json:"value" jsonschema:"The value."`
}

// Set key of the bucket "notes" to value; every key of the bucket then, one
// a line.
func put(args PutArgs) (string, error) {
	b, err := store.Open("notes")
	if err != nil {
		return "", err
	}
	if err := b.SetString(args.Key, args.Value); err != nil {
		return "", err
	}
	keys, err := b.Keys()
	return strings.Join(keys, "\n"), err
}

func init() {
	mcp.Register(count, "Count the calls of this tool, across calls and restarts.")
	mcp.Register(addNote, "Add a note.")
	mcp.Register(notes, "The notes, one a line, oldest first.", mcp.ReadOnly)
	mcp.Register(put, "Set `key` of the bucket \"notes\" to `value`; every key of the bucket then.")
}

func main() {}
