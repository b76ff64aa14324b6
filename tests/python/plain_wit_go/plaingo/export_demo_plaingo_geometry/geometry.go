// Package export_demo_plaingo_geometry implements the functions of the
// interface demo:plaingo/geometry the world exports.
package export_demo_plaingo_geometry

import (
	"math"

	geometry "plaingo/wit/demo_plaingo_geometry"

	witTypes "go.bytecodealliance.org/pkg/wit/types"
)

// Midpoint is the point halfway between two points.
func Midpoint(a, b geometry.Point) geometry.Point {
	return geometry.Point{X: (a.X + b.X) / 2, Y: (a.Y + b.Y) / 2}
}

// Place places a point, with an optional label.
func Place(at geometry.Point, label witTypes.Option[string]) geometry.Placed {
	return geometry.Placed{At: at, Distance: math.Hypot(at.X, at.Y), Label: label}
}
