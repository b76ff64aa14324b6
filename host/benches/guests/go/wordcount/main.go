// wordcount: the `languages` benchmark's Go probe. It implements
// `word_count` exactly as plugins/testing/wordcount does in Rust (the floor),
// so the benchmark compares languages and not tools.
package main

import (
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
)

type Args struct {
	Text string `json:"text" jsonschema:"The text to measure."`
}

type Counts struct {
	Words int `json:"words"`
	Lines int `json:"lines"`
	Chars int `json:"chars"`
}

// hold is the text on which word_count logs it first, as every probe does:
// host/benches/languages.rs holds calls alive on that log line.
const hold = "hold: log this line"

func wordCount(args Args) (Counts, error) {
	if args.Text == hold {
		mcp.Logf(mcp.Info, "%s", hold)
	}
	lines := strings.Count(args.Text, "\n")
	if args.Text != "" && !strings.HasSuffix(args.Text, "\n") {
		lines++
	}
	return Counts{len(strings.Fields(args.Text)), lines, utf8.RuneCountInString(args.Text)}, nil
}

func init() {
	mcp.AddTool(mcp.Tool{Name: "word_count", Description: "Counts the words, lines and characters of a text."}, wordCount)
}

func main() {}
