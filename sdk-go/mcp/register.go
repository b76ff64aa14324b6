// Register: the light form of AddTool, which names the tool after its
// handler function and takes the rest of the Tool as options.

package mcp

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"unicode"
)

// Option sets something about a tool in Register: Name, Title, ReadOnly,
// Idempotent, Destructive, NotDestructive, OpenWorld, ClosedWorld, or any
// func(*Tool) of your own (for icons, task support or a view).
type Option func(*Tool)

// Name names the tool, instead of the handler function's name.
func Name(name string) Option { return func(t *Tool) { t.Name = name } }

// Title gives the tool a human-readable name for display.
func Title(title string) Option { return func(t *Tool) { t.Title = title } }

// ReadOnly says the tool does not modify its environment.
func ReadOnly(t *Tool) { t.ReadOnly = Yes }

// Idempotent says calling the tool again with the same arguments has no
// further effect.
func Idempotent(t *Tool) { t.Idempotent = Yes }

// Destructive says the tool may destroy data.
func Destructive(t *Tool) { t.Destructive = Yes }

// NotDestructive says the tool only adds, never destroys.
func NotDestructive(t *Tool) { t.Destructive = No }

// OpenWorld says the tool talks to an open world, such as the web.
func OpenWorld(t *Tool) { t.OpenWorld = Yes }

// ClosedWorld says the tool's world is closed: it reaches nothing outside.
func ClosedWorld(t *Tool) { t.OpenWorld = No }

// Register declares a tool, as AddTool does, deriving what it can: the
// tool's name is the handler's function name in snake_case (numberStats
// becomes number_stats), its schemas come from In and Out as in AddTool,
// and the options set the rest. Call it from an init function:
//
//	func init() { mcp.Register(numberStats, "Count numbers and give their mean.", mcp.ReadOnly) }
//
// The handler must be a top-level function for its name to be derived; a
// closure or method needs the Name option. Register panics, as AddTool
// does, when the tool cannot be served; the build runs the registrations
// natively, so these mistakes fail the build.
func Register[In, Out any](handler func(args In) (Out, error), description string, options ...Option) {
	tool := Tool{Description: description}
	for _, option := range options {
		if option != nil {
			option(&tool)
		}
	}
	if tool.Name == "" {
		name, err := handlerName(handler)
		if err != nil {
			panic(fmt.Sprintf("mcp.Register: %v", err))
		}
		tool.Name = name
	}
	AddTool(tool, handler)
}

// handlerName is the snake_case name of a top-level function.
func handlerName(handler any) (string, error) {
	value := reflect.ValueOf(handler)
	if value.Kind() != reflect.Func || value.IsNil() {
		return "", fmt.Errorf("the handler is nil")
	}
	fn := runtime.FuncForPC(value.Pointer())
	if fn == nil {
		return "", fmt.Errorf("the handler's name is unknown: pass mcp.Name(\"…\")")
	}
	full := fn.Name() // e.g. "main.numberStats", "example.com/m/pkg.f"
	local := full[strings.LastIndex(full, "/")+1:]
	local = local[strings.Index(local, ".")+1:]
	if local == "" || strings.ContainsAny(local, ".[]()*-") {
		return "", fmt.Errorf("cannot name a tool after %s (a closure, method or generic function): "+
			"pass a top-level function, or mcp.Name(\"…\")", full)
	}
	return snakeCase(local), nil
}

// snakeCase spells a Go identifier in snake_case: numberStats is
// number_stats, parseURL is parse_url, HTTPGet is http_get.
func snakeCase(name string) string {
	runes := []rune(name)
	var b strings.Builder
	for i, r := range runes {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]))
			endOfAcronym := i > 0 && unicode.IsUpper(runes[i-1]) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if prevLower || endOfAcronym {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
