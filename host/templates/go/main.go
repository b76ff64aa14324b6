// @NAME@: an MCP tool for mcp-wasm-host, built into a WebAssembly component.
package main

import (
	"math"

	"github.com/mcp-wasm-host/mcp-wasm-host/sdk-go/mcp"
)

// StatsArgs are number_stats' arguments; the tags make its input schema.
type StatsArgs struct {
	Numbers []float64 `json:"numbers" jsonschema:"The numbers to summarize."`
	Digits  int       `json:"digits" jsonschema:"Decimal places of the mean." minimum:"0" maximum:"10" default:"2"`
}

// Stats is number_stats' result: structured content, with a derived output schema.
type Stats struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

func numberStats(args StatsArgs) (Stats, error) {
	if len(args.Numbers) == 0 {
		return Stats{}, mcp.InvalidArguments("`numbers` is empty")
	}
	stats, sum := Stats{Count: len(args.Numbers), Min: math.Inf(1), Max: math.Inf(-1)}, 0.0
	for _, n := range args.Numbers {
		sum += n
		stats.Min, stats.Max = math.Min(stats.Min, n), math.Max(stats.Max, n)
	}
	scale := math.Pow(10, float64(args.Digits))
	stats.Mean = math.Round(sum/float64(stats.Count)*scale) / scale
	return stats, nil
}

// The tool's name, number_stats, comes from the function's.
func init() {
	mcp.Register(numberStats, "Count numbers and give their mean, minimum and maximum.",
		mcp.Title("Number statistics"), mcp.ReadOnly, mcp.ClosedWorld)
}

func main() {}
