// Declaring tools (AddTool) and running a call: arguments decoded into the
// handler's type, its return value turned into a result, its error or
// panic into a `tool-error`.

package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Hint is a behaviour hint for clients: Yes, No, or Unset (the zero
// value), which leaves the MCP default.
type Hint uint8

const (
	// Unset leaves the MCP default.
	Unset Hint = iota
	// Yes sets the hint to true.
	Yes
	// No sets the hint to false.
	No
)

// Tool describes a tool.
type Tool struct {
	// 1 to 128 of A-Z a-z 0-9 _ . - , unique within the plugin.
	Name string
	// A human-readable name for display, also sent as annotations.title.
	Title string
	// What the tool does, written for the model that will call it.
	Description string
	// The tool does not modify its environment (MCP default: No).
	ReadOnly Hint
	// The tool may destroy data; meaningful when not ReadOnly (MCP
	// default: Yes).
	Destructive Hint
	// Calling it again with the same arguments has no further effect
	// (MCP default: No).
	Idempotent Hint
	// The tool talks to an open world, such as the web (MCP default: Yes).
	OpenWorld Hint
	// Icons clients may show for the tool (none by default; at most 8).
	Icons []Icon
	// Whether a call may run as an MCP task (default: TaskForbidden).
	TaskSupport TaskSupport
	// The ui:// URI of an interactive view (AddView) that shows the tool's
	// results; "" for none.
	View string
	// With View: only the view may call the tool, not the model.
	ViewOnly bool
}

// TaskSupport is whether a call of a tool may run as a task: the call
// returns at once with a task id, the handler goes on running under the
// plugin's task_timeout, and the client polls for its result (MCP's tasks
// extension, from revision 2026-07-28 on). The handler is the same either
// way.
type TaskSupport uint8

const (
	// TaskForbidden: never a task (the default).
	TaskForbidden TaskSupport = iota
	// TaskOptional: a task when the client supports tasks, an ordinary
	// call otherwise.
	TaskOptional
	// TaskRequired: only ever a task; a client without tasks support gets
	// an error.
	TaskRequired
)

// Theme is the theme an icon is drawn for.
type Theme uint8

const (
	// AnyTheme suits any theme (the default).
	AnyTheme Theme = iota
	// Light is for a light background.
	Light
	// Dark is for a dark background.
	Dark
)

// Icon is an icon clients may show for a tool.
type Icon struct {
	// An https: URL, or a data: URI of an image (at most 64 KiB).
	Src string
	// The image's MIME type, e.g. "image/png"; "" for unset.
	MIMEType string
	// WxH sizes ("48x48") or "any"; nil for unset.
	Sizes []string
	// The theme it is drawn for.
	Theme Theme
}

// definition is a registered tool as list-tools sends it.
type definition struct {
	Tool
	inputSchema  string
	outputSchema string // "" for none
}

// schemas are what a tool's types say about its calls.
type schemas struct {
	input  schema
	output schema // nil for none
	// Whether results travel as {"result": value}.
	wrap bool
	// The arguments' defaults as a JSON object, or "".
	defaults string
}

// outcome is what a call produced when it did not fail.
type outcome struct {
	content    []Content
	structured string // "" for none
	isError    bool
}

// registered is a tool and its handler, behind a type-erased call.
type registered struct {
	tool Tool
	// The schemas, derived once, when first needed.
	schemas func() (schemas, error)
	call    func(arguments string) (outcome, error)
}

// registry holds the plugin's tools in the order they were added.
var registry []*registered

// validName says whether name is 1 to 128 of A-Z a-z 0-9 _ . - (checked
// by hand: compiling the equivalent regexp costs each fresh instance
// millions of instructions).
func validName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for _, c := range []byte(name) {
		ok := c == '_' || c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

// AddTool declares a tool; call it from an init function of the plugin's
// main package. The handler gets the call's arguments decoded into In (a
// struct, whose schema becomes the tool's input schema; see the package
// documentation) and returns:
//   - a string: one text block;
//   - a Content or []Content: those blocks;
//   - a Result or *Result: as given;
//   - anything else (a struct, map, slice, number): structured content,
//     whose schema becomes the tool's output schema, and the same JSON as a
//     text block; a value whose JSON is not an object travels as
//     {"result": value}.
//
// A returned error fails the call (see InvalidArguments, Denied, Failed);
// a panic fails it with the panic's value and where it happened.
//
// AddTool panics when the tool cannot be served: a bad or repeated name, no
// description, or an In or Out without a JSON Schema. The build runs the
// registrations natively once, so these mistakes fail the build. (In the
// component, a call derives only its own tool's schemas.)
func AddTool[In, Out any](tool Tool, handler func(args In) (Out, error)) {
	fail := func(err error) { panic(fmt.Sprintf("mcp.AddTool(%q): %v", tool.Name, err)) }
	if err := checkTool(tool); err != nil {
		fail(err)
	}
	r := &registered{tool: tool, schemas: sync.OnceValues(deriveSchemas[In, Out])}
	r.call = func(arguments string) (outcome, error) {
		s, err := r.schemas()
		if err != nil {
			return outcome{}, err
		}
		var args In
		if err := decodeArguments(arguments, s.defaults, &args); err != nil {
			return outcome{}, err
		}
		out, err := handler(args)
		switch {
		case err != nil:
			return outcome{}, err
		case s.output != nil:
			return structuredResult(out, s.wrap)
		}
		return plainResult(out)
	}
	if checkEagerly {
		if _, err := r.schemas(); err != nil {
			fail(err)
		}
	}
	registry = append(registry, r)
	if tool.View != "" {
		toolViews = append(toolViews, toolView{tool: tool.Name, uri: tool.View, modelVisible: !tool.ViewOnly})
	}
}

// checkTool checks what a tool declares.
func checkTool(tool Tool) error {
	if !validName(tool.Name) {
		return errors.New("a tool name is 1 to 128 of A-Z a-z 0-9 _ . -")
	}
	for _, r := range registry {
		if r.tool.Name == tool.Name {
			return errors.New("a tool of that name was already added")
		}
	}
	if strings.TrimSpace(tool.Description) == "" {
		return errors.New("the description is empty: the model reads it to choose the tool")
	}
	if tool.TaskSupport > TaskRequired {
		return fmt.Errorf("TaskSupport %d is not TaskForbidden, TaskOptional or TaskRequired", tool.TaskSupport)
	}
	return nil
}

// deriveSchemas derives the schemas of a handler taking In and returning
// Out.
func deriveSchemas[In, Out any]() (schemas, error) {
	in := reflect.TypeFor[In]()
	if in.Kind() != reflect.Struct {
		return schemas{}, fmt.Errorf("the arguments type %s is not a struct (use struct{} for a tool without arguments)", in)
	}
	input, err := schemaFor(in, input)
	if err != nil {
		return schemas{}, fmt.Errorf("arguments %s: %v", in, err)
	}
	s := schemas{input: input, defaults: defaultsOf(input)}
	out := reflect.TypeFor[Out]()
	if s.output, s.wrap, err = outputSchema(out); err != nil {
		return schemas{}, fmt.Errorf("result %s: %v", out, err)
	}
	return s, nil
}

var (
	contentType      = reflect.TypeFor[Content]()
	contentSliceType = reflect.TypeFor[[]Content]()
	resultType       = reflect.TypeFor[Result]()
	resultPtrType    = reflect.TypeFor[*Result]()
	stringType       = reflect.TypeFor[string]()
)

// isStructured says whether a handler returning t gives structured content.
func isStructured(t reflect.Type) bool {
	switch t {
	case stringType, contentType, contentSliceType, resultType, resultPtrType:
		return false
	}
	return !t.Implements(contentType)
}

// outputSchema is the output schema of a handler returning t (nil for
// none), and whether its values travel wrapped as {"result": value}: all
// but those whose JSON is an object (structs, maps, pointers to them; a
// nil one is refused at the call).
func outputSchema(t reflect.Type) (s schema, wrap bool, err error) {
	if !isStructured(t) {
		return nil, false, nil
	}
	if s, err = schemaFor(t, output); err != nil {
		return nil, false, err
	}
	if types := typesOf(s); slices.Contains(types, "object") && len(types) <= 2 {
		// A nil pointer is refused at the call: the result is an object.
		s = nonNull(s)
		s["type"] = "object"
		return s, false, nil
	}
	return schema{
		"type":       "object",
		"properties": map[string]any{"result": s},
		"required":   []string{"result"},
	}, true, nil
}

// structuredResult is the outcome of a value with an output schema.
func structuredResult(out any, wrap bool) (outcome, error) {
	value := out
	if wrap {
		value = map[string]any{"result": out}
	}
	text, err := json.Marshal(value)
	if err != nil {
		return outcome{}, Failed("the result has no JSON form: %v", err)
	}
	if string(text) == "null" {
		return outcome{}, Failed("the handler returned a nil %T", out)
	}
	return outcome{content: []Content{Text{Text: string(text)}}, structured: string(text)}, nil
}

// plainResult is the outcome of a string, Content, []Content or Result.
func plainResult(out any) (outcome, error) {
	switch out := out.(type) {
	case string:
		return outcome{content: []Content{Text{Text: out}}}, nil
	case []Content:
		return outcome{content: out}, nil
	case *Result:
		if out == nil {
			return outcome{}, nil
		}
		return fromResult(*out)
	case Result:
		return fromResult(out)
	case Content:
		return outcome{content: []Content{out}}, nil
	}
	return outcome{}, nil // a nil Content
}

func fromResult(r Result) (outcome, error) {
	o := outcome{content: r.Content, isError: r.IsError}
	if r.Structured == nil {
		return o, nil
	}
	text, err := json.Marshal(r.Structured)
	if err != nil {
		return outcome{}, Failed("the structured content has no JSON form: %v", err)
	}
	if len(text) == 0 || text[0] != '{' {
		return outcome{}, Failed("the structured content is not a JSON object: %s", truncate(string(text), 80))
	}
	o.structured = string(text)
	return o, nil
}

// decodeArguments reads the call's arguments into args: first the
// defaults, then the arguments over them.
func decodeArguments(arguments, defaults string, args any) error {
	if defaults != "" {
		if err := json.Unmarshal([]byte(defaults), args); err != nil {
			return Failed("applying the defaults: %v", err)
		}
	}
	if err := json.Unmarshal([]byte(arguments), args); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return InvalidArguments("argument %q: expected %s, got %s", typeErr.Field, expected(typeErr.Type), typeErr.Value)
		}
		return InvalidArguments("the arguments do not fit: %v", err)
	}
	return nil
}

// expected names the type an argument must have; for an integer, with its
// bounds (encoding/json refuses one out of range, or in float form such as
// 5.0 or 1e3, rather than round it).
func expected(t reflect.Type) string {
	if t == nil || !isInteger(t) {
		return fmt.Sprint(t)
	}
	min, max := integerBounds(t)
	return fmt.Sprintf("%s (an integer from %d to %d, written without a fraction or exponent)", t, min, max)
}

// defaultsOf is a JSON object of the defaults of an input schema's
// properties, or "" when none has one.
func defaultsOf(s schema) string {
	props, _ := s["properties"].(map[string]any)
	defaults := map[string]any{}
	for name, p := range props {
		if value, ok := p.(schema)["default"]; ok {
			defaults[name] = value
		}
	}
	if len(defaults) == 0 {
		return ""
	}
	return mustJSON(defaults)
}

// listTools is the plugin's tools, for list-tools. The build's check
// has derived every schema once, so none fails here.
func listTools() []definition {
	defs := make([]definition, len(registry))
	for i, r := range registry {
		s, err := r.schemas()
		if err != nil {
			panic(fmt.Sprintf("mcp.AddTool(%q): %v", r.tool.Name, err))
		}
		defs[i] = definition{Tool: r.tool, inputSchema: mustJSON(s.input)}
		if s.output != nil {
			defs[i].outputSchema = mustJSON(s.output)
		}
	}
	return defs
}

// callTool runs the tool `name`; the error is a *ToolError (or any error
// classify maps).
func callTool(name, arguments string) (o outcome, err error) {
	for _, r := range registry {
		if r.tool.Name == name {
			defer func() {
				if p := recover(); p != nil {
					err = Failed("panic: %v (%s)", p, panicSite())
				}
			}()
			return r.call(arguments)
		}
	}
	return outcome{}, &ToolError{kindUnknownTool, fmt.Errorf("no tool %q in this plugin", name)}
}

// panicSite names the function, file and line that panicked, as seen from
// a deferred recover: the first frame below runtime.gopanic that is not in
// the runtime.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	inPanic := false
	for {
		frame, more := frames.Next()
		if inPanic && !strings.HasPrefix(frame.Function, "runtime.") {
			return fmt.Sprintf("in %s at %s:%d", frame.Function, path.Base(frame.File), frame.Line)
		}
		if frame.Function == "runtime.gopanic" {
			inPanic = true
		}
		if !more {
			return "at an unknown place"
		}
	}
}

func mustJSON(v any) string {
	text, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mcp: a schema has no JSON form: %v", err))
	}
	return string(text)
}

// truncate cuts s to at most n bytes, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
