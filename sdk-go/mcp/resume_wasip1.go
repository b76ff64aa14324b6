//go:build wasip1

// What a pre-initialized plugin runs at the start of every instance.
// scripts/build-go-plugin.sh runs Go's start-up (the runtime, then every
// package's init, so every mcp.AddTool) once at build time with Wizer and
// ships the resulting memory as the module's image; the exported
// `mcp-wasm-host-resume` then becomes the module's `_initialize`, which the
// component calls when an instance starts. It does the two things the
// snapshot cannot carry over.

package mcp

import (
	"time"
	"unsafe"
)

// useGCAllocations is the bindings' switch between allocating what the
// host hands in with the garbage collector (once the runtime is up) and
// with sbrk (before).
//
//go:linkname useGCAllocations go.bytecodealliance.org/pkg/wit/runtime.useGCAllocations
var useGCAllocations bool

// globalRand is the runtime's global random state (runtime/rand.go), laid
// out for the pinned Go (sdk-go/requirements.txt): a mutex (one uintptr
// on wasm), a seed, a chacha8rand.State (38 words), and whether it is set.
//
//go:linkname globalRand runtime.globalRand
var globalRand struct {
	lock  uintptr
	seed  [32]byte
	state [38]uint64
	init  bool
}

//go:linkname randinit runtime.randinit
func randinit()

//go:linkname acquirem runtime.acquirem
func acquirem() unsafe.Pointer

//go:linkname releasem runtime.releasem
func releasem(mp unsafe.Pointer)

//go:linkname mrandinit runtime.mrandinit
func mrandinit(mp unsafe.Pointer)

// resume starts an instance of the snapshot:
//
//   - The preview 1 adapter allocates its state on its first call, through
//     the module's cabi_realloc. Allocating with the garbage collector
//     pauses the adapter's clock, which needs that state, and recurses; so
//     the first call is made here with sbrk, as Go's own start-up made it
//     before the snapshot.
//   - The runtime's random state (hash seeds, math/rand) was seeded at
//     build time; it is seeded again from the host's randomness, so that
//     instances do not share it.
//
//go:wasmexport mcp-wasm-host-resume
func resume() {
	useGCAllocations = false
	_ = time.Now()
	useGCAllocations = true
	if globalRand.init {
		globalRand.init = false
		randinit()
		mp := acquirem()
		mrandinit(mp)
		releasem(mp)
	}
}
