package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/store"
)

// fresh empties the registry for one test and restores it afterwards.
func fresh(t *testing.T) {
	t.Helper()
	saved := registry
	registry = nil
	t.Cleanup(func() { registry = saved })
}

// panicOf runs f and returns what it panicked with, or "" if it did not.
func panicOf(f func()) (message string) {
	defer func() {
		if p := recover(); p != nil {
			message = fmt.Sprint(p)
		}
	}()
	f()
	return ""
}

// call runs the tool and fails the test if the call fails.
func call(t *testing.T, name, arguments string) outcome {
	t.Helper()
	o, err := callTool(name, arguments)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, arguments, err)
	}
	return o
}

// callErr runs the tool and returns its error's case and message.
func callErr(t *testing.T, name, arguments string) (ErrorKind, string) {
	t.Helper()
	o, err := callTool(name, arguments)
	if err == nil {
		t.Fatalf("%s(%s): no error, got %+v", name, arguments, o)
	}
	return classify(err)
}

// definitionOf is the listed definition of the tool name.
func definitionOf(t *testing.T, name string) definition {
	t.Helper()
	for _, d := range listTools() {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no tool %q", name)
	return definition{}
}

type greetArgs struct {
	Name  string `json:"name" jsonschema:"Who to greet."`
	Times int    `json:"times,omitempty" default:"2"`
	Loud  *bool  `json:"loud"`
}

func greet(a greetArgs) (string, error) {
	text := strings.Repeat("hello "+a.Name+" ", a.Times)
	if a.Loud != nil && *a.Loud {
		text = strings.ToUpper(text)
	}
	return strings.TrimSpace(text), nil
}

func TestAToolIsListedWithItsHintsAndSchemasAndItsCallsGetTheDecodedArguments(t *testing.T) {
	fresh(t)
	AddTool(Tool{Name: "greet", Title: "Greet", Description: "Greets.", ReadOnly: Yes, OpenWorld: No}, greet)
	d := definitionOf(t, "greet")
	if d.Title != "Greet" || d.ReadOnly != Yes || d.OpenWorld != No || d.Destructive != Unset {
		t.Errorf("definition %+v", d)
	}
	sameJSON(t, d.inputSchema, `{"type": "object", "additionalProperties": false,
		"properties": {"name": {"type": "string", "description": "Who to greet."},
			"times": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807, "default": 2}, "loud": {"type": "boolean"}},
		"required": ["name"]}`)
	if d.outputSchema != "" {
		t.Errorf("a text tool has no output schema: %s", d.outputSchema)
	}
	o := call(t, "greet", `{"name": "Ada"}`)
	if !reflect.DeepEqual(o.content, []Content{Text{Text: "hello Ada hello Ada"}}) || o.structured != "" {
		t.Errorf("the default applies when the argument is absent: %+v", o)
	}
	o = call(t, "greet", `{"name": "Ada", "times": 1, "loud": true}`)
	if !reflect.DeepEqual(o.content, []Content{Text{Text: "HELLO ADA"}}) {
		t.Errorf("an argument present overrides the default: %+v", o)
	}
}

type stats struct {
	Words int      `json:"words"`
	Top   []string `json:"top"`
}

func TestAStructResultIsStructuredContentWithAnOutputSchemaAndTheSameJSONAsText(t *testing.T) {
	fresh(t)
	AddTool(Tool{Name: "stats", Description: "Counts."}, func(struct{}) (stats, error) {
		return stats{Words: 3, Top: []string{"a"}}, nil
	})
	AddTool(Tool{Name: "ptr", Description: "Counts."}, func(struct{}) (*stats, error) { return nil, nil })
	sameJSON(t, definitionOf(t, "stats").outputSchema, `{"type": "object",
		"properties": {"words": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}, "top": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}},
		"required": ["words", "top"]}`)
	o := call(t, "stats", `{}`)
	if o.structured != `{"words":3,"top":["a"]}` || !reflect.DeepEqual(o.content, []Content{Text{Text: o.structured}}) {
		t.Errorf("%+v", o)
	}
	if kind, msg := callErr(t, "ptr", `{}`); kind != KindFailed || msg != "the handler returned a nil *mcp.stats" {
		t.Errorf("a nil pointer result: %v %q", kind, msg)
	}
	sameJSON(t, definitionOf(t, "ptr").outputSchema, definitionOf(t, "stats").outputSchema)
}

func TestAResultWhoseJSONIsNotAnObjectTravelsWrappedAsResult(t *testing.T) {
	fresh(t)
	AddTool(Tool{Name: "list", Description: "Lists."}, func(struct{}) ([]int, error) { return []int{1, 2}, nil })
	AddTool(Tool{Name: "count", Description: "Counts."}, func(struct{}) (float64, error) { return 2.5, nil })
	sameJSON(t, definitionOf(t, "list").outputSchema, `{"type": "object",
		"properties": {"result": {"anyOf": [{"type": "array", "items": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}}, {"type": "null"}]}}, "required": ["result"]}`)
	if o := call(t, "list", `{}`); o.structured != `{"result":[1,2]}` {
		t.Errorf("%+v", o)
	}
	if o := call(t, "count", `{}`); o.structured != `{"result":2.5}` {
		t.Errorf("%+v", o)
	}
}

func TestContentAndResultReturnsAreSentAsGiven(t *testing.T) {
	fresh(t)
	image := Image{Data: []byte{1, 2}, MIMEType: "image/png"}
	AddTool(Tool{Name: "one", Description: "One."}, func(struct{}) (Content, error) { return image, nil })
	AddTool(Tool{Name: "many", Description: "Many."}, func(struct{}) ([]Content, error) {
		return []Content{Text{Text: "a"}, image}, nil
	})
	AddTool(Tool{Name: "result", Description: "Result."}, func(struct{}) (Result, error) {
		return Result{Content: []Content{Text{Text: "bad"}}, Structured: map[string]int{"n": 1}, IsError: true}, nil
	})
	AddTool(Tool{Name: "scalar", Description: "Scalar."}, func(struct{}) (*Result, error) {
		return &Result{Structured: 3}, nil
	})
	for _, name := range []string{"one", "many", "result", "scalar"} {
		if d := definitionOf(t, name); d.outputSchema != "" {
			t.Errorf("%s has an output schema: %s", name, d.outputSchema)
		}
	}
	if o := call(t, "one", `{}`); !reflect.DeepEqual(o.content, []Content{image}) {
		t.Errorf("%+v", o)
	}
	if o := call(t, "many", `{}`); len(o.content) != 2 {
		t.Errorf("%+v", o)
	}
	if o := call(t, "result", `{}`); !o.isError || o.structured != `{"n":1}` {
		t.Errorf("%+v", o)
	}
	if kind, msg := callErr(t, "scalar", `{}`); kind != KindFailed || msg != "the structured content is not a JSON object: 3" {
		t.Errorf("%v %q", kind, msg)
	}
}

func TestErrorsMapToTheirToolErrorCaseKeepingTheWholeMessage(t *testing.T) {
	wrapped := fmt.Errorf("reading the list: %w", InvalidArguments("row %d is empty", 3))
	for _, c := range []struct {
		err  error
		kind ErrorKind
		msg  string
	}{
		{InvalidArguments("pattern %q: %v", "(a", errors.New("missing )")), KindInvalidArguments, `pattern "(a": missing )`},
		{Denied("no access to %s", "/etc"), KindDenied, "no access to /etc"},
		{Failed("disk full"), KindFailed, "disk full"},
		{wrapped, KindInvalidArguments, "reading the list: row 3 is empty"},
		{&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}, KindDenied, "open /x: permission denied"},
		{&ClientError{Kind: "denied", Message: "sampling is off"}, KindDenied, "client request denied: sampling is off"},
		{&ClientError{Kind: "rejected", Message: "no", Code: -1}, KindFailed, "client request rejected (code -1): no"},
		{errors.New("plain"), KindFailed, "plain"},
		// The store's errors: a bucket not granted is a denial naming the
		// policy key; the others fail.
		{&store.Error{Kind: store.AccessDenied, Bucket: "notes", Op: "open"}, KindDenied,
			"this plugin may not open the key-value bucket \"notes\": the server's policy grants it " +
				"with `[plugins.<this plugin>.keyvalue] buckets = [\"notes\"]`"},
		{&store.Error{Kind: store.Other, Bucket: "b", Op: "set", Key: "k", Reason: "over quota"},
			KindFailed, `key-value bucket "b": set "k": over quota`},
	} {
		kind, msg := classify(c.err)
		if kind != c.kind || msg != c.msg {
			t.Errorf("%v: got %v %q, want %v %q", c.err, kind, msg, c.kind, c.msg)
		}
	}
	inner := errors.New("inner")
	if err := Failed("outer: %w", inner); !errors.Is(err, inner) {
		t.Errorf("%%w keeps the chain: %v", err)
	}
}

func TestAPanicFailsTheCallNamingItsValueAndWhereItHappened(t *testing.T) {
	fresh(t)
	AddTool(Tool{Name: "boom", Description: "Panics."}, func(a struct {
		I int `json:"i"`
	}) (string, error) {
		return []string{"only"}[a.I], nil
	})
	kind, msg := callErr(t, "boom", `{"i": 3}`)
	if kind != KindFailed {
		t.Errorf("kind %v", kind)
	}
	for _, want := range []string{"panic: runtime error: index out of range [3] with length 1", "TestAPanicFailsTheCallNamingItsValueAndWhereItHappened", "tool_test.go:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if o := call(t, "boom", `{"i": 0}`); o.content[0].(Text).Text != "only" {
		t.Errorf("the next call runs: %+v", o)
	}
}

func TestArgumentsThatDoNotFitTheTypeAreInvalidArgumentsNamingTheField(t *testing.T) {
	fresh(t)
	AddTool(Tool{Name: "greet", Description: "Greets."}, greet)
	kind, msg := callErr(t, "greet", `{"name": "x", "times": 1.5}`)
	if kind != KindInvalidArguments || msg != `argument "times": expected int (an integer from -9223372036854775808 to 9223372036854775807, written without a fraction or exponent), got number 1.5` {
		t.Errorf("%v %q", kind, msg)
	}
	kind, _ = callErr(t, "greet", `[1]`)
	if kind != KindInvalidArguments {
		t.Errorf("%v", kind)
	}
}

func TestAnUnknownToolIsTheUnknownToolCase(t *testing.T) {
	fresh(t)
	if kind, msg := callErr(t, "nope", `{}`); kind != kindUnknownTool || msg != `no tool "nope" in this plugin` {
		t.Errorf("%v %q", kind, msg)
	}
}

func TestAddToolRefusesWhatCannotBeServedNamingTheTool(t *testing.T) {
	fresh(t)
	ok := func(struct{}) (string, error) { return "", nil }
	AddTool(Tool{Name: "taken", Description: "d"}, ok)
	for _, c := range []struct {
		add  func()
		want string
	}{
		{func() { AddTool(Tool{Name: "has space", Description: "d"}, ok) }, `mcp.AddTool("has space"): a tool name is 1 to 128 of A-Z a-z 0-9 _ . -`},
		{func() { AddTool(Tool{Name: strings.Repeat("a", 129), Description: "d"}, ok) }, "a tool name is 1 to 128"},
		{func() { AddTool(Tool{Name: "taken", Description: "d"}, ok) }, `mcp.AddTool("taken"): a tool of that name was already added`},
		{func() { AddTool(Tool{Name: "quiet", Description: " "}, ok) }, "the description is empty"},
		{func() { AddTool(Tool{Name: "t", Description: "d", TaskSupport: 3}, ok) }, "TaskSupport 3 is not TaskForbidden"},
		{func() {
			AddTool(Tool{Name: "m", Description: "d"}, func(map[string]int) (string, error) { return "", nil })
		},
			"the arguments type map[string]int is not a struct"},
		{func() {
			AddTool(Tool{Name: "c", Description: "d"}, func(struct{ C chan int }) (string, error) { return "", nil })
		}, "arguments struct { C chan int }: C: type chan int has no JSON form"},
		{func() {
			AddTool(Tool{Name: "r", Description: "d"}, func(struct{}) (func(), error) { return nil, nil })
		}, "result func(): type func() has no JSON form"},
	} {
		if got := panicOf(c.add); !strings.Contains(got, c.want) {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if names := len(listTools()); names != 1 {
		t.Errorf("a refused tool is not added: %d tools", names)
	}
}

func TestInvalidUTF8IsRepairedAndValidTextKept(t *testing.T) {
	if got := utf8Text("caf\xc3\xa9 \xff\xfe!"); got != "café \uFFFD!" {
		t.Errorf("%q", got)
	}
	if got := utf8Text("plain ✓"); got != "plain ✓" {
		t.Errorf("%q", got)
	}
	if got := truncate("ééé", 3); got != "é…" {
		t.Errorf("truncate cuts on a character boundary: %q", got)
	}
}

func TestSampleAndElicitCheckTheirRequestsAndOutsideTheHostAreUnsupported(t *testing.T) {
	if _, err := Sample(SampleRequest{}); err == nil || !strings.Contains(err.Error(), "no Prompt and no Messages") {
		t.Errorf("%v", err)
	}
	_, err := Sample(SampleRequest{Messages: []Message{{Role: User, Content: []Content{ResourceLink{URI: "x"}}}}})
	if err == nil || !strings.Contains(err.Error(), "not mcp.ResourceLink") {
		t.Errorf("%v", err)
	}
	var client *ClientError
	if _, err := Sample(SampleRequest{Prompt: "hi"}); !errors.As(err, &client) || client.Kind != "unsupported" {
		t.Errorf("%v", err)
	}
	if _, _, err := Elicit[int]("n?"); err == nil || !strings.Contains(err.Error(), "not a struct") {
		t.Errorf("%v", err)
	}
	type form struct {
		Proceed bool `json:"proceed"`
	}
	if _, ok, err := Elicit[form]("Go on?"); ok || !errors.As(err, &client) {
		t.Errorf("%v %v", ok, err)
	}
}

func TestLogsOutsideTheHostGoToStandardError(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	Logf(Warning, "%d rows", 3)
	os.Stderr = saved
	w.Close()
	var buf [64]byte
	n, _ := r.Read(buf[:])
	if got := string(buf[:n]); got != "mcp: warning: 3 rows\n" {
		t.Errorf("%q", got)
	}
}

// Every integer width's edges: the bounds and 2^53 + 1 are read exactly;
// one past a bound, a bound in float form and an exponent are refused,
// naming the bounds, never rounded or clamped.
func TestIntegerArgumentsAreReadExactlyOrRefusedNamingTheBounds(t *testing.T) {
	type widths struct {
		I32 int32  `json:"i32,omitempty"`
		U32 uint32 `json:"u32,omitempty"`
		I64 int64  `json:"i64,omitempty"`
		U64 uint64 `json:"u64,omitempty"`
	}
	fresh(t)
	AddTool(Tool{Name: "echo", Description: "Echoes."}, func(w widths) (widths, error) { return w, nil })
	for _, c := range []struct{ field, text string }{
		{"i32", "-2147483648"}, {"i32", "2147483647"}, {"u32", "4294967295"},
		{"i64", "-9223372036854775808"}, {"i64", "9223372036854775807"},
		{"i64", "9007199254740993"}, {"i64", "-9007199254740993"},
		{"u64", "18446744073709551615"}, {"u64", "9007199254740993"},
	} {
		args := fmt.Sprintf(`{%q: %s}`, c.field, c.text)
		if got, want := call(t, "echo", args).structured, fmt.Sprintf(`{%q:%s}`, c.field, c.text); got != want {
			t.Errorf("%s: got %s", args, got)
		}
	}
	for _, c := range []struct{ field, text, bounds string }{
		{"i32", "-2147483649", "-2147483648 to 2147483647"},
		{"i32", "2147483648", "-2147483648 to 2147483647"},
		{"u32", "4294967296", "0 to 4294967295"},
		{"u32", "-1", "0 to 4294967295"},
		{"i64", "-9223372036854775809", "-9223372036854775808 to 9223372036854775807"},
		{"i64", "9223372036854775808", "-9223372036854775808 to 9223372036854775807"},
		{"i64", "9007199254740993.0", "-9223372036854775808 to 9223372036854775807"},
		{"u64", "18446744073709551616", "0 to 18446744073709551615"},
		{"u64", "1.8446744073709552e19", "0 to 18446744073709551615"},
		{"u64", "1e3", "0 to 18446744073709551615"},
	} {
		args := fmt.Sprintf(`{%q: %s}`, c.field, c.text)
		kind, msg := callErr(t, "echo", args)
		if kind != KindInvalidArguments || !strings.Contains(msg, c.bounds) || !strings.Contains(msg, c.text) {
			t.Errorf("%s: %v %q", args, kind, msg)
		}
	}
	schema := definitionOf(t, "echo").inputSchema
	for _, want := range []string{
		`"i32":{"maximum":2147483647,"minimum":-2147483648,"type":"integer"}`,
		`"u32":{"maximum":4294967295,"minimum":0,"type":"integer"}`,
		`"i64":{"maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"}`,
		`"u64":{"maximum":18446744073709551615,"minimum":0,"type":"integer"}`,
	} {
		if !strings.Contains(schema, want) {
			t.Errorf("the input schema %s lacks %s", schema, want)
		}
	}
}
