package generators

import (
	"net/netip"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// A draw is the Source one Generate call draws through, with what makes
// the call cheap: the world's lists, which grow one append at a time, are
// built in scratch that draws recycle and copied out once, exactly sized,
// when the world is done; the ops' arguments are carved from one arena;
// short strings from a shared chunk. (The ops themselves go straight into
// the scenario's steps, sized from the plan: copying them out of scratch
// would cost more than the room it saves.) A scenario shares no mutable
// memory with the scratch or with other scenarios.
//
// A draw is a Source so that the generators keep drawing from a Source:
// what only Generate has they reach by asserting a *draw (newArgs, cat),
// and an op drawn by Op for a Source of its own gets plain allocations.
type draw struct {
	src Source
	pcg *pcgSource // src when it is the seeded source: called directly

	// text is the chunk cat carves short strings from. Bytes written to a
	// strings.Builder are never changed, so the strings carved from it stay
	// valid while later ones are appended, and a full chunk is left to the
	// strings that use it. Unlike the scratch lists it may be shared by
	// the scenarios of successive draws: only immutable bytes are.
	text strings.Builder

	// args is the scenario's arena of op arguments, which newArgs carves:
	// the scenario's own memory, not scratch.
	args []string

	// Scratch for the world and grant lists the builder appends to.
	files   []core.File
	routes  []core.Route
	hosts   []string
	dns     []core.DNSRecord
	outputs []core.ToolOutput
}

// draws recycles draws, scratch and all, between Generate calls (a
// campaign makes a fresh Source for every scenario, so the scratch cannot
// live in the Source).
var draws = sync.Pool{New: func() any { return new(draw) }}

// newDraw returns a draw over src with empty scratch.
func newDraw(src Source) *draw {
	d := draws.Get().(*draw)
	d.src = src
	d.pcg, _ = src.(*pcgSource)
	return d
}

// release recycles the draw. Its scratch keeps the entries of the last
// scenario until the next draw overwrites them (clearing costs a write
// barrier per pointer while the collector runs); the pool drops idle
// draws at each collection.
func (d *draw) release() {
	d.src, d.pcg = nil, nil
	d.args, d.files, d.routes = nil, d.files[:0], d.routes[:0]
	d.hosts, d.dns, d.outputs = d.hosts[:0], d.dns[:0], d.outputs[:0]
	draws.Put(d)
}

// Intn draws from the underlying Source.
func (d *draw) Intn(n int) int {
	if d.pcg != nil {
		return d.pcg.Intn(n)
	}
	return d.src.Intn(n)
}

// textChunk is the size of the chunks cat carves from: a scenario's
// concatenations take a few hundred bytes.
const textChunk = 2048

// maxCarved bounds the strings cat carves: longer ones (long paths, big
// inputs) get an allocation of their own rather than a chunk's room.
const maxCarved = 256

// cat returns the concatenation of parts: under Generate, carved from a
// chunk shared with the scenario's other short strings, so that drawing a
// path costs no allocation of its own; else allocated.
func cat(src Source, parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	d, ok := src.(*draw)
	if !ok || n > maxCarved {
		return strings.Join(parts, "")
	}
	if d.text.Cap()-d.text.Len() < n {
		d.text = strings.Builder{} // the full chunk stays with the strings carved from it
		d.text.Grow(textChunk)
	}
	start := d.text.Len()
	for _, p := range parts {
		d.text.WriteString(p)
	}
	return d.text.String()[start:]
}

// argChunk is how many arguments the arena gains when a scenario
// outgrows what Generate reserved.
const argChunk = 64

// reserve gives the argument arena room for n arguments in one allocation.
func (d *draw) reserve(n int) { d.args = make([]string, 0, n) }

// carve returns the next n strings of the argument arena, len == cap so
// that appending to it never reaches a neighbour's. A full arena is left
// to the ops carved from it, and a new one started.
func (d *draw) carve(n int) []string {
	if d.args == nil || len(d.args)+n > cap(d.args) { // never nil: an empty op has empty arguments
		d.args = make([]string, 0, max(argChunk, n))
	}
	i := len(d.args)
	d.args = d.args[:i+n]
	return d.args[i : i+n : i+n]
}

// dnsOut returns the drawn DNS lines, copied out with their answers in one
// array, or nil when there are none.
func (d *draw) dnsOut() []core.DNSRecord {
	if len(d.dns) == 0 {
		return nil
	}
	recs := exactly(d.dns)
	n := 0
	for _, r := range recs {
		n += len(r.Addrs)
	}
	addrs := make([]netip.Addr, n)
	for i := range recs {
		a := &recs[i].Addrs
		k := copy(addrs, *a)
		*a, addrs = addrs[:k:k], addrs[k:]
	}
	return recs
}

// exactly returns a copy of s, never nil, with no spare capacity.
func exactly[T any](s []T) []T {
	out := make([]T, len(s))
	copy(out, s)
	return out
}
