// What the plugin serves beside its tools: a summary of the RE2 syntax as a
// resource, and a prompt that asks the model to explain a pattern.

package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
)

const syntaxURI = "regex://syntax"

// syntaxSummary is the resource regex://syntax.
const syntaxSummary = `# RE2 syntax (Go's regexp), as the regex tools read it

| pattern | matches |
|---|---|
| ` + "`.`" + ` | any character but a line break (any at all with dot_all) |
| ` + "`[abc]` `[^a-z]`" + ` | a character in (or not in) the class |
| ` + "`\\d \\w \\s`" + ` | a digit, a word character, white space (ASCII) |
| ` + "`\\pL \\p{Greek}`" + ` | a Unicode letter, a character of a script |
| ` + "`x* x+ x? x{2,5}`" + ` | repetition, greedy; add ` + "`?`" + ` for the shortest |
| ` + "`(x)` `(?P<name>x)` `(?:x)`" + ` | a numbered group, a named group, a group that captures nothing |
| ` + "`^ $ \\b`" + ` | start, end (of lines with multiline), a word boundary |
| ` + "`(?i)`" + ` | flags: i ignore case, m multiline, s dot_all |

Not supported: backreferences (` + "`\\1`" + `) and lookaround (` + "`(?=x)`" + `). In return,
matching takes time linear in the text, so no pattern can hang a call.
`

func init() {
	mcp.AddTextResource(mcp.ResourceDef{
		URI:         syntaxURI,
		Name:        "syntax",
		Title:       "RE2 syntax",
		Description: "The regular expression syntax regex_find, regex_replace and regex_split accept.",
		MIMEType:    "text/markdown",
	}, syntaxSummary)

	mcp.AddPrompt(mcp.Prompt{
		Name:        "explain_pattern",
		Title:       "Explain a regular expression",
		Description: "Asks the model to explain, piece by piece, what a regular expression matches, with the RE2 syntax at hand.",
		Arguments: []mcp.PromptArgument{
			{Name: "pattern", Description: "The regular expression to explain.", Required: true},
			{Name: "audience", Description: "Who the explanation is for: beginner or expert (default beginner)."},
		},
	}, explainPattern)
	mcp.AddPromptCompletion("explain_pattern", "audience", func(value string, _ map[string]string) ([]string, error) {
		var out []string
		for _, a := range audiences {
			if strings.HasPrefix(a, value) {
				out = append(out, a)
			}
		}
		return out, nil
	})
}

var audiences = []string{"beginner", "expert"}

func explainPattern(args map[string]string) (mcp.PromptResult, error) {
	pattern := args["pattern"]
	audience := args["audience"]
	if audience == "" {
		audience = "beginner"
	}
	switch audience {
	case "beginner", "expert":
	default:
		return mcp.PromptResult{}, mcp.InvalidArguments("audience is beginner or expert, not %q", audience)
	}
	// Whether it compiles, and its groups, come from the engine the tools
	// use, so the model need not guess.
	facts := "It compiles in RE2."
	if re, err := regexp.Compile(pattern); err != nil {
		facts = fmt.Sprintf("It does not compile in RE2: %v.", err)
	} else if n := re.NumSubexp(); n > 0 {
		facts += fmt.Sprintf(" It has %d capturing group(s).", n)
	}
	ask := fmt.Sprintf("Explain, for a %s, what this regular expression matches, piece by piece, with two examples of text it matches and one it does not. %s\n\n%s", audience, facts, pattern)
	return mcp.PromptResult{
		Description: "Explain " + pattern,
		Messages: []mcp.PromptMessage{
			{Role: mcp.User, Content: mcp.Resource{URI: syntaxURI, MIMEType: "text/markdown", Text: syntaxSummary}},
			mcp.UserText(ask),
		},
	}, nil
}
