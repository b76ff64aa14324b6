// Package main is the `regex` plugin: find, replace and split with regular
// expressions, in Go's RE2 syntax, whose matching time is linear in the
// input, so that no pattern can hang a call.
package main

import "github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"

// Options are the flags every tool takes.
type Options struct {
	IgnoreCase bool `json:"ignore_case,omitempty" jsonschema:"Letters match either case (flag i)."`
	Multiline  bool `json:"multiline,omitempty" jsonschema:"^ and $ match at line breaks too (flag m)."`
	DotAll     bool `json:"dot_all,omitempty" jsonschema:". matches a line break too (flag s)."`
}

// FindArgs are regex_find's arguments.
type FindArgs struct {
	Pattern string `json:"pattern" jsonschema:"The regular expression (RE2 syntax, as in Go)." minLength:"1" maxLength:"4096"`
	Text    string `json:"text" jsonschema:"The text to search."`
	Limit   int    `json:"limit,omitempty" jsonschema:"The most matches to return." minimum:"1" maximum:"10000" default:"100"`
	Options
}

// ReplaceArgs are regex_replace's arguments.
type ReplaceArgs struct {
	Pattern     string `json:"pattern" jsonschema:"The regular expression (RE2 syntax, as in Go)." minLength:"1" maxLength:"4096"`
	Text        string `json:"text" jsonschema:"The text to change."`
	Replacement string `json:"replacement" jsonschema:"What replaces each match: $1 or ${1} is group 1, ${name} a named group, $$ a dollar sign; write ${1}x, not $1x, before a letter, digit or underscore."`
	Literal     bool   `json:"literal,omitempty" jsonschema:"Use the replacement as it is, without expanding $."`
	Limit       int    `json:"limit,omitempty" jsonschema:"The most matches to replace, from the start; 0 replaces all." minimum:"0"`
	Options
}

// SplitArgs are regex_split's arguments.
type SplitArgs struct {
	Pattern string `json:"pattern" jsonschema:"The separator, a regular expression (RE2 syntax, as in Go)." minLength:"1" maxLength:"4096"`
	Text    string `json:"text" jsonschema:"The text to split."`
	Limit   int    `json:"limit,omitempty" jsonschema:"The most parts to return; the last holds the rest of the text. 0 returns all." minimum:"0"`
	Options
}

const syntax = " Syntax: RE2, as in Go's regexp (no backreferences or lookaround); matching takes time linear in the text, so no pattern can hang the call."

func init() {
	findTool := computes("regex_find", "Find regex matches", "Finds the matches of a regular expression in a text: each match's text, its start and end (in characters from the start of the text), its line, and the groups that took part (numbered and named).")
	// Many matches in a long text take a while: a client that supports
	// tasks may run the call as one.
	findTool.TaskSupport = mcp.TaskOptional
	mcp.AddTool(findTool, find)
	mcp.AddTool(computes("regex_replace", "Replace regex matches", "Replaces the matches of a regular expression in a text and returns the new text and the number of replacements."), replace)
	mcp.AddTool(computes("regex_split", "Split by regex", "Splits a text around the matches of a regular expression."), split)
}

// computes declares a tool that only computes: read-only, idempotent and
// closed-world.
func computes(name, title, description string) mcp.Tool {
	return mcp.Tool{
		Name: name, Title: title, Description: description + syntax,
		ReadOnly: mcp.Yes, Idempotent: mcp.Yes, OpenWorld: mcp.No,
		Icons: []mcp.Icon{{Src: "https://mcp-wasm-host.example/icons/regex.png", MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: mcp.Dark}},
	}
}

func main() {}
