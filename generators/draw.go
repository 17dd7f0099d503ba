package generators

import (
	"math/bits"
	"net/netip"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// A draw is the Source one Generate call draws through, with what makes
// drawing cheap. Lists grown one append at a time from a guessed capacity
// cost an allocation each, spare room, and the garbage collector's cycles
// that come with them; so each list of the scenario is carved from a slab
// (an array shared with the lists of other scenarios, never overlapping
// them), exactly sized once it is complete, and a scenario costs a handful
// of allocations. The draw also keeps the facts ops look up about the
// scenario (facts.go).
//
// Draws are pooled: a campaign makes a fresh Source for every scenario, so
// the slabs cannot live in the Source. A draw is a Source so that the
// generators keep drawing from a Source: what only Generate has they reach
// by asserting a *draw (newArgs, cat, factsOf), and an op that Op draws
// for a Source of its own gets plain allocations and computes its facts.
type draw struct {
	src Source
	pcg *pcgSource // src when it is the seeded source: called directly

	steps   slab[scenario.Step]
	strs    slab[string] // op arguments and the grant's lists
	files   slab[scenario.File]
	links   slab[scenario.Link]
	routes  slab[scenario.Route]
	dns     slab[scenario.DNSRecord]
	addrs   slab[netip.Addr]
	outputs slab[scenario.ToolOutput]

	facts  facts       // of the scenario being drawn, once its world is
	record worldRecord // what the world gen recorded of that world, for its facts

	// rootBase is 1 + the index in readBases of the base every read root
	// is drawn from (Generator.FixRoots), 0 when each scenario draws it.
	rootBase int
}

// draws recycles draws between Generate calls. The pool drops idle draws
// at each collection, and with them the slabs' unused rest.
var draws = sync.Pool{New: func() any { return new(draw) }}

// newDraw returns a draw over src.
func newDraw(src Source) *draw {
	d := draws.Get().(*draw)
	d.src = src
	d.pcg, _ = src.(*pcgSource)
	return d
}

// release recycles the draw. It must hold no window still open.
func (d *draw) release() {
	d.src, d.pcg, d.facts.sc = nil, nil, nil
	draws.Put(d)
}

// rewind rewinds every slab of d (slab.rewind).
func (d *draw) rewind() {
	d.steps.rewind()
	d.strs.rewind()
	d.files.rewind()
	d.links.rewind()
	d.routes.rewind()
	d.dns.rewind()
	d.addrs.rewind()
	d.outputs.rewind()
}

// abandon abandons every slab of d (slab.abandon).
func (d *draw) abandon() {
	d.steps.abandon()
	d.strs.abandon()
	d.files.abandon()
	d.links.abandon()
	d.routes.abandon()
	d.dns.abandon()
	d.addrs.abandon()
	d.outputs.abandon()
}

// Intn draws from the underlying Source. Generate draws a few hundred
// times a scenario, so for the seeded source this is pcgSource.Intn
// written out (the same draws and results; TestDrawIntn), one call a draw
// instead of two.
func (d *draw) Intn(n int) int {
	if d.pcg == nil || n <= 0 {
		return d.src.Intn(n)
	}
	un := uint64(n)
	hi, lo := bits.Mul64(d.pcg.pcg.Uint64(), un)
	if lo < un {
		hi = d.pcg.redraw(un, hi, lo)
	}
	return int(hi)
}

// slabLen is how many elements a slab's array holds (unless one list needs
// more): a Step slab of 512 holds the steps of about fifteen scenarios.
const slabLen = 512

// A slab hands out slices of one array at a time: exact ones (carve), or a
// window a list is appended into and that close trims to what the list
// used, giving the rest back. Every slice it returns has len == cap, or cap
// at the end of its window, so that appending past it copies the list
// rather than reach another's; a list that outgrows its window is copied
// by append as any slice is, and close then gives back the whole window.
// The zero slab is empty; a slab is used by one draw at a time.
type slab[T any] struct {
	free   []T // the array's rest, not handed out
	spare  []T // an older array's rest, for a window free cannot hold
	window int // the capacity of the open window
	// A Generator's slabs are rewound (rewind): base is the array they
	// hand out from again, from its start, and grown says that a list did
	// not fit in it since, so that a new array was made.
	base  []T
	grown bool
}

// room makes sure free holds n elements: it swaps in the spare when that
// holds them, else starts a new array and keeps the larger of the two
// rests as the spare (a scenario of 200 slots asks for more room than most
// rests hold; without the spare, the rest it skips would be lost).
func (s *slab[T]) room(n int) {
	switch { // never nil, even for n == 0: an empty list is not a nil one
	case s.free != nil && len(s.free) >= n:
	case s.spare != nil && len(s.spare) >= n:
		s.free, s.spare = s.spare, s.free
	default:
		if len(s.free) > len(s.spare) {
			s.spare = s.free
		}
		s.free = make([]T, max(n, slabLen))
		s.grown = true
	}
}

// rewind makes everything s handed out since the last rewind free again,
// for a Generator whose last scenario nobody reads any more. What was
// handed out of base is cleared, so that every list starts out zero as
// in a new array. When the lists outgrew base, they are left to the
// collector with the arrays made for them (free's elements past what was
// carved are not cleared: every carve overwrites what it hands out), and
// base is a new array twice as long: after a few scenarios a Generator's
// lists fit in base and it makes none.
func (s *slab[T]) rewind() {
	if s.grown {
		s.base = make([]T, max(slabLen, 2*len(s.base)))
		s.grown = false
	} else {
		clear(s.base[:len(s.base)-len(s.free)]) // free is base's rest: spare is nil and nothing was made
	}
	s.free, s.spare = s.base, nil
}

// abandon leaves everything s handed out to whoever still reads it: the
// next lists come from a new array, as long as base.
func (s *slab[T]) abandon() {
	s.base = make([]T, len(s.base))
	s.free, s.spare, s.grown = s.base, nil, false
}

// carve returns n elements, never nil.
func (s *slab[T]) carve(n int) []T {
	s.room(n)
	c := s.free[:n:n]
	s.free = s.free[n:]
	return c
}

// open returns an empty list, never nil, with room for n appends; no other
// slice may be carved from s until close.
func (s *slab[T]) open(n int) []T {
	s.room(n)
	s.window = n
	return s.free[:0:n]
}

// close returns list, which open returned and appends grew, with no spare
// capacity, and gives what it did not use back to the slab.
func (s *slab[T]) close(list []T) []T {
	if cap(list) == s.window { // still in the window: append never copied it
		s.free = s.free[len(list):]
	}
	s.window = 0
	return list[:len(list):len(list)]
}

// cat returns the concatenation of parts. It takes the Source its callers
// draw from, so that every piece of an op is built the same way.
func cat(_ Source, parts ...string) string { return strings.Join(parts, "") }
