// Package main is the `stats` test plugin: number_stats declared with
// mcp.Register, the light form, which host/tests/all/light_forms.rs lists
// and calls beside the same tool in Rust and C.
package main

import (
	"math"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
)

// StatsArgs are number_stats' arguments.
type StatsArgs struct {
	Numbers []float64 `json:"numbers" jsonschema:"The numbers to summarize."`
	Digits  int       `json:"digits,omitempty" jsonschema:"Decimal places of the mean (default 2)." minimum:"0" maximum:"10" default:"2"`
}

// Stats is number_stats' result.
type Stats struct {
	Count int     `json:"count" jsonschema:"How many numbers."`
	Mean  float64 `json:"mean" jsonschema:"Their mean, rounded."`
}

func numberStats(args StatsArgs) (Stats, error) {
	if len(args.Numbers) == 0 {
		return Stats{}, mcp.InvalidArguments("`numbers` is empty")
	}
	sum := 0.0
	for _, n := range args.Numbers {
		sum += n
	}
	scale := math.Pow(10, float64(args.Digits))
	return Stats{Count: len(args.Numbers), Mean: math.Round(sum/float64(len(args.Numbers))*scale) / scale}, nil
}

func init() {
	mcp.Register(numberStats, "Count numbers and give their mean.",
		mcp.Title("Number statistics"), mcp.ReadOnly, mcp.ClosedWorld)
}

func main() {}
