package mcp

import (
	"encoding/json"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

// schemaJSON derives T's schema for dir and returns it as JSON text.
func schemaJSON[T any](t *testing.T, dir direction) string {
	t.Helper()
	s, err := schemaFor(reflect.TypeFor[T](), dir)
	if err != nil {
		t.Fatalf("schema of %s: %v", reflect.TypeFor[T](), err)
	}
	return mustJSON(s)
}

// schemaErr derives T's input schema and returns the error it must give.
func schemaErr[T any](t *testing.T) string {
	t.Helper()
	_, err := schemaFor(reflect.TypeFor[T](), input)
	if err == nil {
		t.Fatalf("schema of %s: no error", reflect.TypeFor[T]())
	}
	return err.Error()
}

// sameJSON fails unless got and want are the same JSON value.
func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("schema differs\n got: %s\nwant: %s", got, want)
	}
}

func TestScalarsBecomeJSONTypesWithTheBoundsOfEveryIntegerWidth(t *testing.T) {
	type args struct {
		S   string  `json:"s"`
		B   bool    `json:"b"`
		I   int     `json:"i"`
		I8  int8    `json:"i8"`
		U   uint    `json:"u"`
		U16 uint16  `json:"u16"`
		F   float64 `json:"f"`
	}
	sameJSON(t, schemaJSON[args](t, input), `{
		"type": "object", "additionalProperties": false,
		"properties": {
			"s": {"type": "string"}, "b": {"type": "boolean"}, "i": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807},
			"i8": {"type": "integer", "minimum": -128, "maximum": 127},
			"u": {"type": "integer", "minimum": 0, "maximum": 18446744073709551615},
			"u16": {"type": "integer", "minimum": 0, "maximum": 65535},
			"f": {"type": "number"}
		},
		"required": ["s", "b", "i", "i8", "u", "u16", "f"]
	}`)
}

func TestAnInputFieldIsRequiredUnlessItIsAPointerOmitemptyOmitzeroOrHasADefault(t *testing.T) {
	type args struct {
		Plain     string  `json:"plain"`
		Pointer   *string `json:"pointer"`
		OmitEmpty string  `json:"omit_empty,omitempty"`
		OmitZero  string  `json:"omit_zero,omitzero"`
		Default   string  `json:"default" default:"x"`
	}
	s, err := schemaFor(reflect.TypeFor[args](), input)
	if err != nil {
		t.Fatal(err)
	}
	if got := s["required"]; !reflect.DeepEqual(got, []string{"plain"}) {
		t.Errorf("required = %v", got)
	}
}

func TestAnOutputFieldIsRequiredUnlessOmittedWhenEmptyAndNilableFieldsMayBeNull(t *testing.T) {
	type result struct {
		Name  string            `json:"name"`
		Tags  []string          `json:"tags"`
		Attrs map[string]int    `json:"attrs"`
		Next  *int              `json:"next"`
		Note  string            `json:"note,omitempty"`
		Extra map[string]string `json:"extra,omitempty"`
	}
	sameJSON(t, schemaJSON[result](t, output), `{
		"type": "object",
		"properties": {
			"name": {"type": "string"},
			"tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
			"attrs": {"anyOf": [{"type": "object", "additionalProperties": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}}, {"type": "null"}]},
			"next": {"anyOf": [{"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}, {"type": "null"}]},
			"note": {"type": "string"},
			"extra": {"anyOf": [{"type": "object", "additionalProperties": {"type": "string"}}, {"type": "null"}]}
		},
		"required": ["name", "tags", "attrs", "next"]
	}`)
}

func TestFieldsAreNamedAndPromotedByEncodingJSONsRules(t *testing.T) {
	type Inner struct {
		Deep   string `json:"deep"`
		Shadow int    `json:"shadow"`
	}
	type Other struct {
		Clash string
	}
	type Another struct {
		Clash string
	}
	type args struct {
		Renamed  string `json:"renamed"`
		Untagged string
		Skipped  string `json:"-"`
		Dash     string `json:"-,"`
		hidden   string
		Inner
		Other
		Another
		Shadow string `json:"shadow"`
	}
	_ = args{}.hidden
	s, err := schemaFor(reflect.TypeFor[args](), input)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range s["properties"].(map[string]any) {
		names = append(names, name)
	}
	want := map[string]bool{"renamed": true, "Untagged": true, "-": true, "deep": true, "shadow": true}
	if len(names) != len(want) {
		t.Fatalf("properties %v, want %v", names, want)
	}
	for _, n := range names {
		if !want[n] {
			t.Errorf("unexpected property %q in %v", n, names)
		}
	}
	if typ := s["properties"].(map[string]any)["shadow"].(schema)["type"]; typ != "string" {
		t.Errorf("the outer shadow field wins over the promoted one: type %v", typ)
	}
}

func TestCompositeAndSpecialTypesHaveTheSchemaOfTheirJSONForm(t *testing.T) {
	type point struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	type args struct {
		List   []string          `json:"list"`
		Pair   [2]int            `json:"pair"`
		Dict   map[string]bool   `json:"dict"`
		ByID   map[int]string    `json:"by_id"`
		Bytes  []byte            `json:"bytes"`
		When   time.Time         `json:"when"`
		Raw    json.RawMessage   `json:"raw"`
		Any    any               `json:"any"`
		Nested point             `json:"nested"`
		Points []point           `json:"points"`
		Addr   netip.Addr        `json:"addr"`
		Number json.Number       `json:"number"`
		Deep   map[string][]bool `json:"deep"`
	}
	sameJSON(t, schemaJSON[args](t, input), `{
		"type": "object", "additionalProperties": false,
		"properties": {
			"list": {"type": "array", "items": {"type": "string"}},
			"pair": {"type": "array", "items": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807}, "minItems": 2, "maxItems": 2},
			"dict": {"type": "object", "additionalProperties": {"type": "boolean"}},
			"by_id": {"type": "object", "additionalProperties": {"type": "string"}},
			"bytes": {"type": "string", "contentEncoding": "base64"},
			"when": {"type": "string", "format": "date-time"},
			"raw": {},
			"any": {},
			"nested": {"type": "object", "additionalProperties": false,
				"properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]},
			"points": {"type": "array", "items": {"type": "object", "additionalProperties": false,
				"properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}},
			"addr": {"type": "string"},
			"number": {"type": "number"},
			"deep": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "boolean"}}}
		},
		"required": ["list", "pair", "dict", "by_id", "bytes", "when", "raw", "any", "nested", "points", "addr", "number", "deep"]
	}`)
}

func TestTagsAddTheDescriptionAndKeywordsAndEnumsConstrainAListsItems(t *testing.T) {
	type args struct {
		Style  string   `json:"style" jsonschema:"How to say it." enum:"plain,loud"`
		Level  int      `json:"level" enum:"1,2,3"`
		Times  int      `json:"times" minimum:"1" maximum:"10" multipleOf:"1"`
		Ratio  float64  `json:"ratio" exclusiveMinimum:"0" exclusiveMaximum:"1.5"`
		Name   string   `json:"name" minLength:"1" maxLength:"64" pattern:"^[a-z]+$"`
		Date   string   `json:"date" format:"date"`
		Colors []string `json:"colors" enum:"red,green" minItems:"1" maxItems:"2" uniqueItems:"true"`
		Sizes  []int    `json:"sizes" minimum:"0"`
		Word   string   `json:"word,omitempty" default:"hello"`
		Count  int      `json:"count,omitempty" default:"3"`
		Flag   bool     `json:"flag,omitempty" default:"true"`
	}
	sameJSON(t, schemaJSON[args](t, input), `{
		"type": "object", "additionalProperties": false,
		"properties": {
			"style": {"type": "string", "description": "How to say it.", "enum": ["plain", "loud"]},
			"level": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807, "enum": [1, 2, 3]},
			"times": {"type": "integer", "minimum": 1, "maximum": 10, "multipleOf": 1},
			"ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5},
			"name": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[a-z]+$"},
			"date": {"type": "string", "format": "date"},
			"colors": {"type": "array", "items": {"type": "string", "enum": ["red", "green"]},
				"minItems": 1, "maxItems": 2, "uniqueItems": true},
			"sizes": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807}},
			"word": {"type": "string", "default": "hello"},
			"count": {"type": "integer", "minimum": -9223372036854775808, "maximum": 9223372036854775807, "default": 3},
			"flag": {"type": "boolean", "default": true}
		},
		"required": ["style", "level", "times", "ratio", "name", "date", "colors", "sizes"]
	}`)
}

func TestAStringOptionMakesANumberTravelAsAString(t *testing.T) {
	type args struct {
		ID int64 `json:"id,string"`
	}
	sameJSON(t, schemaJSON[args](t, input), `{"type": "object", "additionalProperties": false,
		"properties": {"id": {"type": "string"}}, "required": ["id"]}`)
}

type level string

func (level) JSONSchema() map[string]any {
	return map[string]any{"type": "string", "enum": []string{"low", "high"}}
}

type pointerProvided struct{ v int }

func (*pointerProvided) JSONSchema() map[string]any {
	return map[string]any{"type": "integer", "minimum": 5}
}

func TestATypeWithAJSONSchemaMethodGivesItsOwnSchemaAndTagsStillApply(t *testing.T) {
	type args struct {
		Level level           `json:"level" jsonschema:"How much."`
		Ptr   pointerProvided `json:"ptr"`
	}
	sameJSON(t, schemaJSON[args](t, input), `{"type": "object", "additionalProperties": false,
		"properties": {
			"level": {"type": "string", "enum": ["low", "high"], "description": "How much."},
			"ptr": {"type": "integer", "minimum": 5}
		},
		"required": ["level", "ptr"]}`)
}

func TestAStructWithoutFieldsIsAnObjectWithoutProperties(t *testing.T) {
	sameJSON(t, schemaJSON[struct{}](t, input), `{"type": "object", "additionalProperties": false}`)
}

func TestTypesWithoutAJSONFormAreRefusedNamingTheFieldPath(t *testing.T) {
	type withChan struct {
		Inner struct {
			C chan int
		}
	}
	type withFunc struct {
		F []func()
	}
	type withKey struct {
		M map[[2]int]string
	}
	for _, c := range []struct{ got, want string }{
		{schemaErr[withChan](t), "Inner.C: type chan int has no JSON form"},
		{schemaErr[withFunc](t), "F.[]: type func() has no JSON form"},
		{schemaErr[withKey](t), "M: map keys of type [2]int have no JSON form (use string, integer or encoding.TextMarshaler keys)"},
		{schemaErr[complex128](t), "type complex128 has no JSON form"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

type tree struct {
	Value    int    `json:"value"`
	Children []tree `json:"children"`
}

func TestARecursiveTypeIsRefusedWithAHint(t *testing.T) {
	err := schemaErr[tree](t)
	if !strings.Contains(err, "contains itself") || !strings.Contains(err, "JSONSchema") {
		t.Errorf("%s", err)
	}
}

func TestAKeywordOnTheWrongTypeOrWithABadValueIsRefusedNamingTheTag(t *testing.T) {
	type minOnString struct {
		S string `minimum:"1"`
	}
	type lengthOnInt struct {
		N int `maxLength:"3"`
	}
	type itemsOnString struct {
		S string `minItems:"1"`
	}
	type badNumber struct {
		N int `maximum:"ten"`
	}
	type badCount struct {
		S string `minLength:"-1"`
	}
	type badEnum struct {
		N int `enum:"1,two"`
	}
	type badDefault struct {
		N int `default:"{"`
	}
	type nestedDefault struct {
		Inner struct {
			N int `default:"1"`
		}
	}
	for _, c := range []struct{ got, want string }{
		{schemaErr[minOnString](t), `S: tag minimum:"1": minimum applies to numbers`},
		{schemaErr[lengthOnInt](t), `N: tag maxLength:"3": maxLength applies to strings`},
		{schemaErr[itemsOnString](t), `S: tag minItems:"1": minItems applies to slices and arrays`},
		{schemaErr[badNumber](t), `N: tag maximum:"ten": "ten" is not a number`},
		{schemaErr[badCount](t), `S: tag minLength:"-1": "-1" is not a count`},
		{schemaErr[badEnum](t), `N: tag enum:"1,two": "two" is not a number`},
		{schemaErr[nestedDefault](t), "Inner.N: a default is allowed only on the top-level struct's fields"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if got := schemaErr[badDefault](t); !strings.HasPrefix(got, `N: tag default:"{": not JSON`) {
		t.Errorf("got %q", got)
	}
}

func TestStructTagsAreReadWithQuotesAndEscapesAsReflectReadsThem(t *testing.T) {
	st := reflect.StructTag(`json:"a,omitempty"  jsonschema:"Say \"hi\", then go." enum:"x,y" broken`)
	got := parseTags(st)
	want := []tag{{"json", "a,omitempty"}, {"jsonschema", `Say "hi", then go.`}, {"enum", "x,y"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, w := range want {
		if v, _ := st.Lookup(w.key); v != w.value {
			t.Errorf("reflect reads %s as %q, parseTags as %q", w.key, v, w.value)
		}
	}
}
