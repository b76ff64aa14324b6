// JSON Schemas derived from Go types with reflect, naming and omitting
// fields by encoding/json's rules, so that the schema describes exactly
// the JSON that json.Unmarshal accepts (arguments) or json.Marshal
// produces (results).

package mcp

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// direction says which side of encoding/json a schema describes.
type direction uint8

const (
	// input: what json.Unmarshal accepts. Objects refuse unknown
	// properties; a field is required unless it is a pointer, omitempty,
	// omitzero or has a default.
	input direction = iota
	// output: what json.Marshal produces. A field is required unless it
	// is omitempty or omitzero; nil pointers, slices and maps are null.
	output
)

// schema is one JSON Schema object.
type schema map[string]any

// schemaProvider is implemented by a type that gives its own schema.
type schemaProvider interface {
	JSONSchema() map[string]any
}

var (
	providerType        = reflect.TypeFor[schemaProvider]()
	timeType            = reflect.TypeFor[time.Time]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// schemaError is a type without a schema, and where it was met.
type schemaError struct {
	path []string
	msg  string
}

func (e *schemaError) Error() string {
	if len(e.path) == 0 {
		return e.msg
	}
	return strings.Join(e.path, ".") + ": " + e.msg
}

// at prefixes the error's path with one step.
func at(step string, err error) error {
	if se, ok := err.(*schemaError); ok {
		se.path = append([]string{step}, se.path...)
		return se
	}
	return err
}

func errorf(format string, args ...any) error {
	return &schemaError{msg: fmt.Sprintf(format, args...)}
}

// deriver derives the schemas of one root type.
type deriver struct {
	dir direction
	// The struct types being derived, to refuse recursive types.
	visiting map[reflect.Type]bool
	// The depth of struct nesting: `default` is allowed at depth 1 only.
	depth int
}

// schemaFor is the schema of t as dir describes it.
func schemaFor(t reflect.Type, dir direction) (schema, error) {
	d := deriver{dir: dir, visiting: map[reflect.Type]bool{}}
	return d.of(t)
}

func (d *deriver) of(t reflect.Type) (schema, error) {
	if t.Kind() == reflect.Pointer {
		s, err := d.of(t.Elem())
		if err != nil || d.dir == input {
			return s, err
		}
		return nullable(s), nil
	}
	if s, ok := d.special(t); ok {
		return s, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return schema{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		min, max := integerBounds(t)
		return schema{"type": "integer", "minimum": min, "maximum": max}, nil
	case reflect.Float32, reflect.Float64:
		return schema{"type": "number"}, nil
	case reflect.String:
		return schema{"type": "string"}, nil
	case reflect.Interface:
		return schema{}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !d.custom(t.Elem()) {
			// encoding/json writes []byte as a base64 string.
			return d.orNull(schema{"type": "string", "contentEncoding": "base64"}), nil
		}
		items, err := d.of(t.Elem())
		if err != nil {
			return nil, at("[]", err)
		}
		return d.orNull(schema{"type": "array", "items": items}), nil
	case reflect.Array:
		items, err := d.of(t.Elem())
		if err != nil {
			return nil, at("[]", err)
		}
		return schema{"type": "array", "items": items, "minItems": t.Len(), "maxItems": t.Len()}, nil
	case reflect.Map:
		key := t.Key()
		if key.Kind() != reflect.String && !isInteger(key) && !implements(key, textMarshalerType) {
			return nil, errorf("map keys of type %s have no JSON form (use string, integer or encoding.TextMarshaler keys)", key)
		}
		values, err := d.of(t.Elem())
		if err != nil {
			return nil, at("[]", err)
		}
		return d.orNull(schema{"type": "object", "additionalProperties": values}), nil
	case reflect.Struct:
		return d.object(t)
	default:
		return nil, errorf("type %s has no JSON form", t)
	}
}

// special is the schema of a type encoding/json treats specially, or
// that gives its own.
func (d *deriver) special(t reflect.Type) (schema, bool) {
	switch {
	case implements(t, providerType):
		var provider schemaProvider
		if t.Implements(providerType) {
			provider = reflect.New(t).Elem().Interface().(schemaProvider)
		} else {
			provider = reflect.New(t).Interface().(schemaProvider)
		}
		s := schema{}
		for k, v := range provider.JSONSchema() {
			s[k] = v
		}
		return s, true
	case t == timeType:
		return schema{"type": "string", "format": "date-time"}, true
	case t == numberType:
		return schema{"type": "number"}, true
	case t == rawMessageType:
		return schema{}, true
	case d.dir == input && implements(t, jsonUnmarshalerType),
		d.dir == output && implements(t, jsonMarshalerType):
		return schema{}, true
	case d.dir == input && implements(t, textUnmarshalerType),
		d.dir == output && implements(t, textMarshalerType):
		return schema{"type": "string"}, true
	}
	return nil, false
}

// custom says whether encoding/json lets t encode itself.
func (d *deriver) custom(t reflect.Type) bool {
	if d.dir == input {
		return implements(t, jsonUnmarshalerType) || implements(t, textUnmarshalerType)
	}
	return implements(t, jsonMarshalerType) || implements(t, textMarshalerType)
}

// orNull makes s accept null on output, where a nil slice or map is null.
func (d *deriver) orNull(s schema) schema {
	if d.dir == output {
		return nullable(s)
	}
	return s
}

// nullable makes s accept null too: `anyOf` with a null branch, never a
// "type" list such as ["array", "null"], which some clients cannot take
// (the MCP Inspector's --strict check flags it).
func nullable(s schema) schema {
	if _, ok := s["type"]; !ok || isNullable(s) {
		return s
	}
	return schema{"anyOf": []any{s, schema{"type": "null"}}}
}

// isNullable tells whether s is nullable's `anyOf`.
func isNullable(s schema) bool {
	branches, ok := s["anyOf"].([]any)
	if !ok || len(branches) != 2 {
		return false
	}
	null, ok := branches[1].(schema)
	return ok && len(null) == 1 && null["type"] == "null"
}

// nonNull is the schema nullable wrapped, or s itself.
func nonNull(s schema) schema {
	if isNullable(s) {
		if inner, ok := s["anyOf"].([]any)[0].(schema); ok {
			return inner
		}
	}
	return s
}

// object is the schema of a struct: one property per field encoding/json
// sees, with the field's tags applied.
func (d *deriver) object(t reflect.Type) (schema, error) {
	if d.visiting[t] {
		return nil, errorf("type %s contains itself; give it a JSONSchema() map[string]any method", t)
	}
	d.visiting[t] = true
	d.depth++
	defer func() {
		delete(d.visiting, t)
		d.depth--
	}()

	props := map[string]any{}
	required := []string{}
	for _, f := range jsonFields(t) {
		s, err := d.field(f)
		if err != nil {
			return nil, at(f.goName, err)
		}
		props[f.name] = s
		if d.isRequired(f) {
			required = append(required, f.name)
		}
	}
	s := schema{"type": "object"}
	if len(props) > 0 {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = required
	}
	if d.dir == input {
		s["additionalProperties"] = false
	}
	return s, nil
}

// isRequired says whether the property is always in the JSON.
func (d *deriver) isRequired(f jsonField) bool {
	if f.omitEmpty || f.omitZero {
		return false
	}
	if d.dir == output {
		return true
	}
	return f.typ.Kind() != reflect.Pointer && !slices.ContainsFunc(f.tags, func(t tag) bool { return t.key == "default" })
}

// field is the schema of one field: its type's, with the `jsonschema`
// description and the keyword tags applied.
func (d *deriver) field(f jsonField) (schema, error) {
	var s schema
	if f.asString && isScalar(f.typ) {
		// `json:",string"`: the value travels as a JSON string.
		s = schema{"type": "string"}
	} else {
		var err error
		if s, err = d.of(f.typ); err != nil {
			return nil, err
		}
	}
	for _, t := range f.tags {
		if t.key == "jsonschema" {
			if t.value != "" {
				s["description"] = t.value
			}
			continue
		}
		apply, ok := keywords[t.key]
		if !ok {
			continue
		}
		if t.key == "default" && d.depth > 1 {
			return nil, errorf("a default is allowed only on the top-level struct's fields")
		}
		if err := apply(s, t.value); err != nil {
			return nil, errorf("tag %s:%q: %v", t.key, t.value, err)
		}
	}
	return s, nil
}

// keywords are the tags named after a JSON Schema keyword that a field
// may carry, and how each applies to the field's schema.
var keywords = map[string]func(s schema, value string) error{
	"enum":             applyEnum,
	"minimum":          numbers.keyword("minimum", parseNumber),
	"maximum":          numbers.keyword("maximum", parseNumber),
	"exclusiveMinimum": numbers.keyword("exclusiveMinimum", parseNumber),
	"exclusiveMaximum": numbers.keyword("exclusiveMaximum", parseNumber),
	"multipleOf":       numbers.keyword("multipleOf", parseNumber),
	"minLength":        strs.keyword("minLength", parseCount),
	"maxLength":        strs.keyword("maxLength", parseCount),
	"pattern":          strs.keyword("pattern", verbatim),
	"format":           strs.keyword("format", verbatim),
	"minItems":         arrays.keyword("minItems", parseCount),
	"maxItems":         arrays.keyword("maxItems", parseCount),
	"uniqueItems":      arrays.keyword("uniqueItems", parseBool),
	"default":          applyDefault,
}

// leaf is the schema value keywords apply to: the innermost items of an
// array field (so `enum` on a []string constrains each string), else s.
func leaf(s schema) schema {
	s = nonNull(s)
	for s["type"] == "array" || slices.Contains(typesOf(s), "array") {
		items, ok := s["items"].(schema)
		if !ok {
			return s
		}
		s = nonNull(items)
	}
	return s
}

// typesOf lists the types s accepts: its "type", a string or a list, and
// "null" when it is nullable's `anyOf`.
func typesOf(s schema) []string {
	if isNullable(s) {
		return append(typesOf(nonNull(s)), "null")
	}
	switch typ := s["type"].(type) {
	case string:
		return []string{typ}
	case []string:
		return typ
	}
	return nil
}

func hasType(s schema, names ...string) bool {
	for _, t := range typesOf(s) {
		if slices.Contains(names, t) {
			return true
		}
	}
	return false
}

// appliesTo is the kind of schema a keyword constrains.
type appliesTo struct {
	what  string   // for messages: "numbers"
	types []string // the JSON types it has
	// The schema within a field's that the keyword goes on.
	target func(schema) schema
}

var (
	numbers = appliesTo{"numbers", []string{"integer", "number"}, leaf}
	strs    = appliesTo{"strings", []string{"string"}, leaf}
	arrays  = appliesTo{"slices and arrays", []string{"array"}, nonNull}
)

// keyword applies the keyword name, its tag read by parse.
func (a appliesTo) keyword(name string, parse func(string) (any, error)) func(schema, string) error {
	return func(s schema, value string) error {
		target := a.target(s)
		if !hasType(target, a.types...) {
			return fmt.Errorf("%s applies to %s", name, a.what)
		}
		v, err := parse(value)
		if err != nil {
			return err
		}
		target[name] = v
		return nil
	}
}

// verbatim is a tag taken as it is.
func verbatim(value string) (any, error) { return value, nil }

// applyEnum sets the allowed values, comma-separated in the tag, parsed
// as the field's type.
func applyEnum(s schema, value string) error {
	target := leaf(s)
	var values []any
	for _, item := range strings.Split(value, ",") {
		v, err := scalar(target, item)
		if err != nil {
			return err
		}
		values = append(values, v)
	}
	target["enum"] = values
	return nil
}

// applyDefault sets the value used when the argument is absent: the tag
// itself for a string, else the tag read as JSON.
func applyDefault(s schema, value string) error {
	if hasType(s, "string") {
		s["default"] = value
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	s["default"] = v
	return nil
}

// scalar reads one enum value as the type of s.
func scalar(s schema, text string) (any, error) {
	switch {
	case hasType(s, "string"):
		return text, nil
	case hasType(s, "integer", "number"):
		return parseNumber(text)
	case hasType(s, "boolean"):
		return parseBool(text)
	}
	return nil, fmt.Errorf("enum applies to strings, numbers and booleans")
}

// parseNumber reads a JSON number, keeping its text ("1" stays an integer).
func parseNumber(text string) (any, error) {
	if text == "" || text[0] != '-' && (text[0] < '0' || text[0] > '9') || !json.Valid([]byte(text)) {
		return nil, fmt.Errorf("%q is not a number", text)
	}
	if f, err := strconv.ParseFloat(text, 64); err != nil || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%q is not a finite number", text)
	}
	return json.Number(text), nil
}

func parseCount(text string) (any, error) {
	var n uint64
	if _, err := fmt.Sscanf(text, "%d", &n); err != nil || fmt.Sprint(n) != text {
		return nil, fmt.Errorf("%q is not a count", text)
	}
	return n, nil
}

func parseBool(text string) (any, error) {
	switch text {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return nil, fmt.Errorf("%q is not true or false", text)
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return isUnsigned(t)
}

// integerBounds are the least and greatest values of the integer type t,
// exactly (as int64 or uint64, which encoding/json writes digit for digit).
func integerBounds(t reflect.Type) (min, max any) {
	shift := 64 - t.Bits()
	if isUnsigned(t) {
		return uint64(0), uint64(math.MaxUint64) >> shift
	}
	return int64(math.MinInt64) >> shift, int64(math.MaxInt64) >> shift
}

func isUnsigned(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// isScalar says whether `json:",string"` applies to t.
func isScalar(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64:
		return true
	}
	return isInteger(t)
}
