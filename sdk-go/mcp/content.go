// The content blocks a tool returns, and Result, a whole call's outcome.

package mcp

import (
	"strings"
	"unicode/utf8"
)

// Content is one block of a result: Text, Image, Audio, ResourceLink or
// Resource.
type Content interface {
	isContent()
}

// Role says who a block or a sampling message is for or from.
type Role uint8

const (
	// User is the human user.
	User Role = iota
	// Assistant is the model.
	Assistant
)

// Annotations are optional hints on a block.
type Annotations struct {
	// The intended readers; empty means no preference.
	Audience []Role
	// How important the block is, from 0 to 1; nil: unset.
	Priority *float64
	// When the content was last modified, as an ISO 8601 timestamp.
	LastModified string
}

// Text is plain text.
type Text struct {
	Text        string
	Annotations *Annotations
}

// Image is an image: its bytes (the host base64-encodes them) and MIME
// type, such as "image/png".
type Image struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
}

// Audio is an audio clip: its bytes and MIME type, such as "audio/wav".
type Audio struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
}

// ResourceLink points to a resource the client may fetch.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	// The size in bytes; 0: unknown.
	Size        uint64
	Annotations *Annotations
}

// Resource embeds a resource's contents: Blob when it is not nil, else
// Text.
type Resource struct {
	URI         string
	MIMEType    string
	Text        string
	Blob        []byte
	Annotations *Annotations
}

func (Text) isContent()         {}
func (Image) isContent()        {}
func (Audio) isContent()        {}
func (ResourceLink) isContent() {}
func (Resource) isContent()     {}

// Result is a call's whole outcome, for a handler that chooses its blocks
// and structured content itself.
type Result struct {
	// The blocks, in order.
	Content []Content
	// Structured content: anything json.Marshal turns into a JSON object,
	// or nil for none. It is not checked against an output schema.
	Structured any
	// The tool ran but failed in a way the model should see; Content
	// explains why.
	IsError bool
}

// utf8Text is s with each invalid UTF-8 sequence replaced by U+FFFD: the
// component model traps on a string that is not UTF-8, and Go strings may
// hold any bytes.
func utf8Text(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
