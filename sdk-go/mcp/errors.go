// The errors a handler returns to fail a call, and how every error maps to
// a WIT `tool-error` case.

package mcp

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrorKind is the `tool-error` case a ToolError becomes.
type ErrorKind uint8

const (
	// KindFailed: any failure the model should see (`failed`).
	KindFailed ErrorKind = iota
	// KindInvalidArguments: the arguments matched the schema but cannot
	// be used, such as a pattern that does not compile
	// (`invalid-arguments`).
	KindInvalidArguments
	// KindDenied: access to a file, variable or other capability was
	// denied (`denied`).
	KindDenied
	// kindUnknownTool: the plugin has no tool of that name; only the SDK
	// returns it.
	kindUnknownTool
	// kindNotFound: no such resource or prompt (`not-found` of a
	// serve-error; `failed` for a tool). NotFound makes it.
	kindNotFound
)

// ToolError is an error that chooses its `tool-error` case. Return one
// made by InvalidArguments, Denied or Failed, or wrap one with %w: the
// case is found with errors.As and the message is the whole error's.
type ToolError struct {
	Kind ErrorKind
	err  error
}

// Error is the message the model sees (the host prefixes it with the
// tool and the plugin).
func (e *ToolError) Error() string { return e.err.Error() }

// Unwrap gives the error that a %w in the message wrapped, if any.
func (e *ToolError) Unwrap() error { return errors.Unwrap(e.err) }

// InvalidArguments fails the call as `invalid-arguments`: the arguments
// fit the schema but cannot be used. The message is formatted as by
// fmt.Errorf (%w wraps).
func InvalidArguments(format string, args ...any) error {
	return &ToolError{KindInvalidArguments, fmt.Errorf(format, args...)}
}

// Denied fails the call as `denied`: the sandbox refused a file, variable
// or other capability the tool needs.
func Denied(format string, args ...any) error {
	return &ToolError{KindDenied, fmt.Errorf(format, args...)}
}

// Failed fails the call as `failed`. A plain error does the same.
func Failed(format string, args ...any) error {
	return &ToolError{KindFailed, fmt.Errorf(format, args...)}
}

// ClientError is why a request to the client (Sample, Elicit) got no
// answer. Returned from a handler, Kind "denied" fails the call as
// `denied` and the others as `failed`.
type ClientError struct {
	// "unsupported" (the client or session cannot take the request),
	// "denied" (the plugin's policy does not grant it), "rejected" (the
	// client answered with an error) or "failed".
	Kind    string
	Message string
	// The client's JSON-RPC error code and data, for "rejected".
	Code int64
	Data string
}

func (e *ClientError) Error() string {
	if e.Kind == "rejected" {
		return fmt.Sprintf("client request rejected (code %d): %s", e.Code, e.Message)
	}
	return fmt.Sprintf("client request %s: %s", e.Kind, e.Message)
}

// classify is the `tool-error` case and message for an error a handler
// returned: a ToolError's own case; a ClientError's as documented there;
// fs.ErrPermission, or a path outside every mounted directory, is
// `denied`; anything else `failed`.
func classify(err error) (ErrorKind, string) {
	var tool *ToolError
	var client *ClientError
	switch {
	case errors.As(err, &tool):
		return tool.Kind, err.Error()
	case errors.As(err, &client) && client.Kind == "denied":
		return KindDenied, err.Error()
	case errors.Is(err, fs.ErrPermission), outsideMounts(err):
		return KindDenied, err.Error()
	}
	return KindFailed, err.Error()
}
