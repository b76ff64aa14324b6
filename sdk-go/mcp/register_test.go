package mcp

import (
	"strings"
	"testing"
)

type meanArgs struct {
	Numbers []float64 `json:"numbers" jsonschema:"The numbers to summarize."`
	Digits  int       `json:"digits" jsonschema:"Decimal places." minimum:"0" maximum:"10" default:"2"`
}

type meanStats struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
}

func numberStats(args meanArgs) (meanStats, error) {
	if len(args.Numbers) == 0 {
		return meanStats{}, InvalidArguments("`numbers` is empty")
	}
	sum := 0.0
	for _, n := range args.Numbers {
		sum += n
	}
	return meanStats{Count: len(args.Numbers), Mean: sum / float64(len(args.Numbers))}, nil
}

func HTTPGet(struct{}) (string, error) { return "got", nil }

func TestSnakeCaseOfGoNames(t *testing.T) {
	cases := map[string]string{
		"numberStats": "number_stats",
		"NumberStats": "number_stats",
		"parseURL":    "parse_url",
		"HTTPGet":     "http_get",
		"sha256Sum":   "sha256_sum",
		"x":           "x",
		"already_ok":  "already_ok",
		"ID":          "id",
	}
	for in, want := range cases {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRegisterDerivesTheNameAndAppliesOptions(t *testing.T) {
	fresh(t)
	Register(numberStats, "Count numbers and give their mean.", Title("Number statistics"), ReadOnly, ClosedWorld, Idempotent, NotDestructive)
	Register(HTTPGet, "Get.", Name("fetch"), OpenWorld, Destructive)
	Register(HTTPGet, "Get again.")
	defs := listTools()
	if len(defs) != 3 {
		t.Fatalf("want 3 tools, got %d", len(defs))
	}
	d := defs[0]
	if d.Name != "number_stats" || d.Title != "Number statistics" || d.ReadOnly != Yes ||
		d.OpenWorld != No || d.Idempotent != Yes || d.Destructive != No {
		t.Errorf("number_stats: %+v", d.Tool)
	}
	for _, want := range []string{`"required":["numbers"]`, `"maximum":10`, `"The numbers to summarize."`} {
		if !strings.Contains(d.inputSchema, want) {
			t.Errorf("input schema lacks %s: %s", want, d.inputSchema)
		}
	}
	if !strings.Contains(d.outputSchema, `"mean"`) {
		t.Errorf("output schema: %s", d.outputSchema)
	}
	if defs[1].Name != "fetch" || defs[1].OpenWorld != Yes || defs[1].Destructive != Yes {
		t.Errorf("fetch: %+v", defs[1].Tool)
	}
	if defs[2].Name != "http_get" {
		t.Errorf("http_get: %+v", defs[2].Tool)
	}
	o := call(t, "number_stats", `{"numbers":[1,2]}`)
	if o.structured != `{"count":2,"mean":1.5}` {
		t.Errorf("structured: %s", o.structured)
	}
	if _, err := callTool("number_stats", `{"numbers":[]}`); err == nil || !strings.Contains(err.Error(), "`numbers` is empty") {
		t.Errorf("refusal: %v", err)
	}
}

func TestRegisterRefusesWhatItCannotName(t *testing.T) {
	fresh(t)
	closure := func(struct{}) (string, error) { return "", nil }
	cases := []struct {
		register func()
		want     string
	}{
		{func() { Register(closure, "C.") }, "a closure, method or generic function"},
		{func() { Register[struct{}, string](nil, "N.") }, "the handler is nil"},
		{func() { Register(numberStats, "") }, "the description is empty"},
		{func() { Register(closure, "C.", Name("bad name")) }, "a tool name is 1 to 128"},
	}
	for _, c := range cases {
		if got := panicOf(c.register); !strings.Contains(got, c.want) {
			t.Errorf("want a panic containing %q, got %q", c.want, got)
		}
	}
	// A closure with a name is fine.
	Register(closure, "C.", Name("named"))
}
