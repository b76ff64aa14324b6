// The tools' handlers, and what they share: compiling a pattern with its
// flags, counting characters and lines, checking a replacement's groups.

package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
)

// maxResult bounds the text a call returns (the host allows 8 MiB).
const maxResult = 1 << 20

// Match is one match of regex_find.
type Match struct {
	Text   string  `json:"text"`
	Start  int     `json:"start" jsonschema:"Characters before the match."`
	End    int     `json:"end" jsonschema:"Characters before the end of the match."`
	Line   int     `json:"line" jsonschema:"The line the match starts on, from 1."`
	Groups []Group `json:"groups,omitempty" jsonschema:"The groups that took part in the match."`
}

// Group is a capturing group's part of a match.
type Group struct {
	Index int    `json:"index" jsonschema:"The group's number, from 1."`
	Name  string `json:"name,omitempty" jsonschema:"The group's name, for (?P<name>...)."`
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// FindResult is regex_find's result.
type FindResult struct {
	Matches   []Match `json:"matches"`
	Count     int     `json:"count" jsonschema:"The number of matches returned."`
	Truncated bool    `json:"truncated" jsonschema:"More matches follow the last one returned."`
}

// ReplaceResult is regex_replace's result.
type ReplaceResult struct {
	Text         string `json:"text"`
	Replacements int    `json:"replacements"`
}

// SplitResult is regex_split's result.
type SplitResult struct {
	Parts []string `json:"parts"`
	Count int      `json:"count"`
}

func find(a FindArgs) (FindResult, error) {
	re, err := compile(a.Pattern, a.Options)
	if err != nil {
		return FindResult{}, err
	}
	found := re.FindAllStringSubmatchIndex(a.Text, a.Limit+1)
	result := FindResult{Matches: []Match{}, Truncated: len(found) > a.Limit}
	found = found[:min(len(found), a.Limit)]
	names := re.SubexpNames()
	at := cursor{text: a.Text, line: 1}
	size := 0
	for _, m := range found {
		at.advance(m[0])
		match := Match{Text: a.Text[m[0]:m[1]], Start: at.chars, End: at.charsTo(m[1]), Line: at.line}
		for g := 1; g < len(names); g++ {
			start, end := m[2*g], m[2*g+1]
			if start < 0 {
				continue
			}
			match.Groups = append(match.Groups, Group{
				Index: g, Name: names[g], Text: a.Text[start:end],
				Start: at.charsTo(start), End: at.charsTo(end),
			})
			size += end - start
		}
		if size += m[1] - m[0]; size > maxResult {
			return FindResult{}, mcp.Failed("the first %d matches hold more than %d bytes of text; lower the limit or narrow the pattern", len(result.Matches)+1, maxResult)
		}
		result.Matches = append(result.Matches, match)
	}
	result.Count = len(result.Matches)
	mcp.Logf(mcp.Info, "%d match(es) in %d characters", result.Count, utf8.RuneCountInString(a.Text))
	return result, nil
}

func replace(a ReplaceArgs) (ReplaceResult, error) {
	re, err := compile(a.Pattern, a.Options)
	if err != nil {
		return ReplaceResult{}, err
	}
	if !a.Literal {
		if err := checkTemplate(re, a.Replacement); err != nil {
			return ReplaceResult{}, err
		}
	}
	limit := -1
	if a.Limit > 0 {
		limit = a.Limit
	}
	var out []byte
	last, count := 0, 0
	for _, m := range re.FindAllStringSubmatchIndex(a.Text, limit) {
		out = append(out, a.Text[last:m[0]]...)
		if a.Literal {
			out = append(out, a.Replacement...)
		} else {
			out = re.ExpandString(out, a.Replacement, a.Text, m)
		}
		last, count = m[1], count+1
		if len(out) > maxResult {
			return ReplaceResult{}, mcp.Failed("the new text would be longer than %d bytes", maxResult)
		}
	}
	out = append(out, a.Text[last:]...)
	if len(out) > maxResult {
		return ReplaceResult{}, mcp.Failed("the new text would be longer than %d bytes", maxResult)
	}
	return ReplaceResult{Text: string(out), Replacements: count}, nil
}

func split(a SplitArgs) (SplitResult, error) {
	re, err := compile(a.Pattern, a.Options)
	if err != nil {
		return SplitResult{}, err
	}
	limit := -1
	if a.Limit > 0 {
		limit = a.Limit
	}
	parts := re.Split(a.Text, limit)
	return SplitResult{Parts: parts, Count: len(parts)}, nil
}

// compile compiles the pattern, refusing it as invalid arguments with the
// parser's message (which quotes the pattern as written, without flags).
func compile(pattern string, o Options) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, mcp.InvalidArguments("pattern: %v", err)
	}
	flags := ""
	for _, f := range []struct {
		on   bool
		flag string
	}{{o.IgnoreCase, "i"}, {o.Multiline, "m"}, {o.DotAll, "s"}} {
		if f.on {
			flags += f.flag
		}
	}
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	return regexp.Compile(pattern)
}

// cursor walks a text forward, counting characters and lines.
type cursor struct {
	text  string
	pos   int // a byte offset
	chars int // characters before pos
	line  int // the line pos is on, from 1
}

// advance moves to the byte offset to, which is not before pos.
func (c *cursor) advance(to int) {
	skipped := c.text[c.pos:to]
	c.chars += utf8.RuneCountInString(skipped)
	c.line += strings.Count(skipped, "\n")
	c.pos = to
}

// charsTo is the number of characters before the byte offset to, which is
// not before pos.
func (c *cursor) charsTo(to int) int {
	return c.chars + utf8.RuneCountInString(c.text[c.pos:to])
}

// checkTemplate refuses a replacement that names a group the pattern does
// not have, which regexp would silently replace with nothing. It reads $
// references as regexp.Expand does: $$, $name or ${name}, where a name is
// the longest run of letters, digits and underscores (so $1x is ${1x}).
func checkTemplate(re *regexp.Regexp, template string) error {
	names := re.SubexpNames()
	for rest := template; ; {
		i := strings.IndexByte(rest, '$')
		if i < 0 || i+1 >= len(rest) {
			return nil
		}
		rest = rest[i+1:]
		if rest[0] == '$' {
			rest = rest[1:]
			continue
		}
		name, braced := "", strings.HasPrefix(rest, "{")
		if braced {
			rest = rest[1:]
		}
		n := 0
		for n < len(rest) && isNameByte(rest[n]) {
			n++
		}
		name, rest = rest[:n], rest[n:]
		if braced {
			if !strings.HasPrefix(rest, "}") {
				continue // not a reference: regexp copies the $ as it is
			}
			rest = rest[1:]
		}
		if name == "" || hasGroup(names, name) {
			continue
		}
		hint := ""
		if d := leadingDigits(name); d != "" && d != name && hasGroup(names, d) {
			hint = fmt.Sprintf("; to follow group %s by %q write ${%s}%s", d, name[len(d):], d, name[len(d):])
		}
		return mcp.InvalidArguments("replacement: ${%s} names no group of the pattern (its groups: %s)%s", name, groupList(names), hint)
	}
}

func isNameByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// hasGroup says whether name is a group's number or name (0 is the whole
// match).
func hasGroup(names []string, name string) bool {
	if n, err := strconv.Atoi(name); err == nil && leadingDigits(name) == name {
		return n < len(names)
	}
	for _, have := range names[1:] {
		if have == name {
			return true
		}
	}
	return false
}

func leadingDigits(s string) string {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return s[:n]
}

// groupList names the pattern's groups: "0, 1, 2 (year)", or "only 0,
// the whole match".
func groupList(names []string) string {
	if len(names) == 1 {
		return "only 0, the whole match"
	}
	list := []string{"0"}
	for i, name := range names[1:] {
		if name != "" {
			list = append(list, fmt.Sprintf("%d (%s)", i+1, name))
		} else {
			list = append(list, strconv.Itoa(i+1))
		}
	}
	return strings.Join(list, ", ")
}
