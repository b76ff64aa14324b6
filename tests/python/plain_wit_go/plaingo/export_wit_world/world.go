// Package export_wit_world implements the functions the plaingo world
// exports itself.
package export_wit_world

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

// Greet greets someone, by nickname if there is one.
func Greet(name string, nick witTypes.Option[string]) string {
	return "hello, " + nick.SomeOr(name)
}

// Total is the sum of some integers.
func Total(values []int32) int64 {
	var sum int64
	for _, v := range values {
		sum += int64(v)
	}
	return sum
}

// ParseCount parses a count; it fails on anything that is not a whole
// number of at most 32 bits.
func ParseCount(text string) witTypes.Result[uint32, string] {
	digits := text != "" && strings.Trim(text, "0123456789") == ""
	n, err := strconv.ParseUint(text, 10, 32)
	if !digits || err != nil {
		return witTypes.Err[uint32, string](fmt.Sprintf("not a count: '%s'", text))
	}
	return witTypes.Ok[uint32, string](uint32(n))
}

// Words are the words of a text, or none if it has none.
func Words(text string) witTypes.Option[[]string] {
	found := strings.Fields(text)
	if len(found) == 0 {
		return witTypes.None[[]string]()
	}
	return witTypes.Some(found)
}

// Next is the next whole number, or none after the largest u64.
func Next(n uint64) witTypes.Option[uint64] {
	if n == math.MaxUint64 {
		return witTypes.None[uint64]()
	}
	return witTypes.Some(n + 1)
}
