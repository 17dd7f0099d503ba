package oracle

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// maxOpWorldBytes is the least cap on what one op of a sandbox may send
// into its world: the bytes of the paths, data, hosts and inputs of its
// calls, and of the realpath answers it is given (refworld.World.BeginOp).
// An op over its cap is a total finding that names the cap: the world
// keeps nothing more of it, so a sandbox that floods its world cannot
// exhaust the harness's memory.
//
// No correct sandbox comes near it. SPEC §5 sends an op's arguments into
// the world at most twice (fs_write: a realpath of the path, then the
// write of the answer with the data), and a scenario file holds at most
// 16 MiB; a scenario built in Go with longer arguments, or with long link
// targets, gets a cap grown by them (opWorldCap).
const maxOpWorldBytes = 64 << 20

// worldCapBase is the least cap of an op on world ws: maxOpWorldBytes,
// plus twice what its links may add to a path (a resolved path is sent
// back as the realpath answer, then with the read or write).
func worldCapBase(ws scenario.WorldSpec) int64 {
	longest := 0
	for _, l := range ws.Links {
		longest = max(longest, len(l.Target))
	}
	return maxOpWorldBytes + 2*maxLinks*int64(longest) // each link adds at most its target
}

// opWorldCap is the cap of op on a world whose least cap is base: four
// times its arguments more, twice what SPEC §5 sends of them.
func opWorldCap(base int64, op core.Op) int64 {
	n := int64(0)
	for _, a := range op.Args {
		n += int64(len(a))
	}
	return base + 4*n
}
