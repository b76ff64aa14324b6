// The fields encoding/json sees in a struct: exported fields and the
// promoted fields of embedded structs, named by their `json` tags, with
// encoding/json's rule for names that collide.

package mcp

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// jsonField is one property of a struct's JSON form.
type jsonField struct {
	name      string // the JSON name
	goName    string // the Go field's name, for messages
	tagged    bool   // the name comes from a json tag
	index     []int  // the path of field indexes from the outer struct
	typ       reflect.Type
	tags      []tag // all of the field's tags, in order
	omitEmpty bool
	omitZero  bool
	asString  bool // `json:",string"`
}

// jsonFields lists t's JSON properties in declaration order.
func jsonFields(t reflect.Type) []jsonField {
	var all []jsonField
	collectFields(t, nil, map[reflect.Type]bool{}, &all)

	// The dominant field for each name: the least nested; among equals,
	// the only tagged one; with no single winner the name is dropped.
	byName := map[string][]jsonField{}
	for _, f := range all {
		byName[f.name] = append(byName[f.name], f)
	}
	var fields []jsonField
	for _, candidates := range byName {
		if f, ok := dominant(candidates); ok {
			fields = append(fields, f)
		}
	}
	slices.SortFunc(fields, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return fields
}

func collectFields(t reflect.Type, index []int, seen map[reflect.Type]bool, out *[]jsonField) {
	if seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	for i := range t.NumField() {
		sf := t.Field(i)
		embedded := sf.Type
		if embedded.Kind() == reflect.Pointer {
			embedded = embedded.Elem()
		}
		if sf.Anonymous {
			if !sf.IsExported() && embedded.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tags := parseTags(sf.Tag)
		jsonTag := lookup(tags, "json")
		if jsonTag == "-" {
			continue
		}
		name, options, _ := strings.Cut(jsonTag, ",")
		path := append(slices.Clone(index), i)
		if name == "" && sf.Anonymous && embedded.Kind() == reflect.Struct {
			collectFields(embedded, path, seen, out)
			continue
		}
		f := jsonField{
			name:   name,
			goName: sf.Name,
			tagged: name != "",
			index:  path,
			typ:    sf.Type,
			tags:   tags,
		}
		if name == "" {
			f.name = sf.Name
		}
		for _, option := range strings.Split(options, ",") {
			switch option {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "string":
				f.asString = true
			}
		}
		*out = append(*out, f)
	}
}

func dominant(candidates []jsonField) (jsonField, bool) {
	depth := len(candidates[0].index)
	for _, f := range candidates {
		depth = min(depth, len(f.index))
	}
	var shallow, tagged []jsonField
	for _, f := range candidates {
		if len(f.index) == depth {
			shallow = append(shallow, f)
			if f.tagged {
				tagged = append(tagged, f)
			}
		}
	}
	switch {
	case len(shallow) == 1:
		return shallow[0], true
	case len(tagged) == 1:
		return tagged[0], true
	}
	return jsonField{}, false
}

// tag is one key:"value" pair of a struct tag.
type tag struct {
	key, value string
}

// parseTags reads every key:"value" pair of a struct tag, in order, by the
// convention reflect.StructTag.Lookup follows; reading them once is cheaper
// than looking each keyword up (a fresh instance pays for every lookup).
// Parsing stops at the first malformed pair.
func parseTags(st reflect.StructTag) []tag {
	var tags []tag
	for s := string(st); ; {
		s = strings.TrimLeft(s, " ")
		i := 0
		for i < len(s) && s[i] > ' ' && s[i] != ':' && s[i] != '"' && s[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(s) || s[i] != ':' || s[i+1] != '"' {
			return tags
		}
		key := s[:i]
		s = s[i+1:]
		i = 1
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			return tags
		}
		value, err := strconv.Unquote(s[:i+1])
		if err != nil {
			return tags
		}
		tags = append(tags, tag{key, value})
		s = s[i+1:]
	}
}

// lookup is the value of the tag key, or "".
func lookup(tags []tag, key string) string {
	for _, t := range tags {
		if t.key == key {
			return t.value
		}
	}
	return ""
}
