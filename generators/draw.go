package generators

import (
	"net/netip"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// A draw is the Source one Generate call draws through, with the scratch
// lists the scenario is built in. Lists grow one append at a time while a
// scenario is drawn, so they are built in scratch that draws recycle, and
// copied out once, exactly sized, when their length is known: a scenario
// costs a few allocations of just the bytes it holds, and shares no memory
// with the scratch or with other scenarios.
//
// A draw is a Source so that the generators keep drawing from a Source:
// what only Generate has (the scratch) they reach through newArgs, and an
// op drawn by Op for a Source of its own gets plain allocations instead.
type draw struct {
	src Source
	pcg *pcgSource // src when it is the seeded source: called directly

	// text is the chunk cat carves short strings from. Bytes written to a
	// strings.Builder are never changed, so the strings carved from it stay
	// valid while later ones are appended, and a full chunk is left to the
	// strings that use it. Unlike the scratch lists it may be shared by
	// the scenarios of successive draws: only immutable bytes are.
	text strings.Builder

	steps []scenario.Step // the ops, until Generate copies them into the scenario
	args  []string        // the ops' arguments, carved by newArgs

	// The world and grant lists the builder appends to.
	files   []core.File
	routes  []core.Route
	links   []core.Link
	hosts   []string
	dns     []core.DNSRecord
	outputs []core.ToolOutput
}

// draws recycles draws, scratch and all, between Generate calls (a
// campaign makes a fresh Source for every scenario, so the scratch cannot
// live in the Source). A draw holds no scenario's data once released.
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
	d.steps, d.args, d.files, d.routes = d.steps[:0], d.args[:0], d.files[:0], d.routes[:0]
	d.links, d.hosts, d.dns, d.outputs = d.links[:0], d.hosts[:0], d.dns[:0], d.outputs[:0]
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

// carve returns the next n strings of the argument scratch, len == cap so
// that appending to it never reaches a neighbour's. When the scratch is
// full it moves to a bigger array; the ops carved so far keep the old one
// until stepsOut copies them out.
func (d *draw) carve(n int) []string {
	if d.args == nil || len(d.args)+n > cap(d.args) { // never nil: an empty op has empty arguments
		d.args = make([]string, len(d.args), 2*cap(d.args)+n+64)
	}
	i := len(d.args)
	d.args = d.args[:i+n]
	return d.args[i : i+n : i+n]
}

// stepsOut returns the drawn ops, copied out of the scratch together with
// their arguments: one slice of steps, one array of arguments, each
// exactly sized. Nil arguments stay nil and empty ones empty.
func (d *draw) stepsOut() []scenario.Step {
	steps := exactly(d.steps)
	n := 0
	for _, st := range steps {
		n += len(st.Op.Args)
	}
	args := make([]string, n)
	for i := range steps {
		a := &steps[i].Op.Args
		if *a == nil {
			continue
		}
		k := copy(args, *a)
		*a, args = args[:k:k], args[k:]
	}
	return steps
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
