// Package dims names the dimensions of SPEC as data — every internal range
// of §6 with its edges and spellings, each budget of §5 and each pair of
// budgets on the edge in the same op, the clock shapes of §7, the byte
// classes of every argument and of returned data, the path shapes of §4
// under roots written with and without a trailing slash, and the host
// shapes of §9 — and counts how often a campaign's scenarios hit each
// point. Invariant × class coverage cannot show that a campaign never drew
// an address inside 172.16.0.0/12 other than 172.16.0.1, or never put two
// budgets on their edge at once; this table can. A point it lists unhit,
// for no reason the catalogue knows (Point.Unreachable), is a gap after a
// campaign of the default size (campaign.DefaultChecks); after a shorter
// one it was merely not hit (package reports says which).
//
// Points are counted from the scenario, not from the sandbox under test: a
// reference sandbox (SPEC §5, core.Reference) runs every op over its own
// world, and what reached each step of the pipeline — a budget test, a
// resolution, an effect's bytes — is what the scenario put in front of
// any sandbox.
package dims

import "unsafe"

// The dimensions' IDs.
const (
	InternalRange = "internal-range" // §6: each range × edge × spelling
	Budget        = "budget"         // §5: each budget × {0, below, at, one over, max int64}
	BudgetPair    = "budget-pair"    // §5: two or three budgets on their edge in the same op
	Clock         = "clock"          // §7: the clock's shapes
	Bytes         = "bytes"          // §2: byte classes of every argument and of returned data
	PathShape     = "path-shape"     // §4: path shapes × roots with and without a trailing slash
	HostShape     = "host-shape"     // §9: host shapes against the granted hosts
)

// IDs lists the dimensions in table order.
var IDs = []string{InternalRange, Budget, BudgetPair, Clock, Bytes, PathShape, HostShape}

// Point is one point of a dimension: a group (a range, a budget, an
// argument) and a name within it.
type Point struct {
	Dim   string `json:"dimension"`
	Group string `json:"group"`
	Name  string `json:"point"`
	// Unreachable says why no scenario can hit the point (there is no
	// address below 0.0.0.0); "" for a point a campaign must hit.
	Unreachable string `json:"unreachable,omitempty"`
}

// String returns "dimension group: point".
func (p Point) String() string { return p.Dim + " " + p.Group + ": " + p.Name }

// Catalog returns every point, in table order: dimension by dimension,
// group by group. Indices into it are the indices of Counts.
func Catalog() []Point { return append([]Point(nil), catalog...) }

// Counts holds how often each point of the Catalog was hit. The zero
// Counts is empty and ready to use. It is not safe for concurrent use, and
// copies of it share the memory Count keeps in it to reuse: count into
// one copy at a time.
type Counts struct {
	hits []uint64
	memo [1 << memoBits]classMemo // byte classes of long strings seen lately, by memoSlot
	run  *counter                 // Count's per-scenario state, reused; nil before the first Count
}

// classMemo remembers the byte class of one long string by its bytes'
// address and length: generated scenarios return the same megabyte of
// filler again and again, and a string's bytes never change (the memo's
// pointer keeps them from being freed and reused).
type classMemo struct {
	p     *byte
	n     int
	class int
}

// memoFrom is the length from which byte classes are remembered.
const memoFrom = 512

// class is ByteClass(s), remembered for long strings. Memos are found by
// address alone, because generated floods are slices fill[:n] of one
// string with many lengths n, and every prefix of ASCII is ASCII: an
// ASCII memo answers for any length up to its own. Other classes are not
// kept by prefixes (a cut can split a rune; a NUL can lie past the cut)
// and answer for their own length only. A slot keeps the longest string
// it has seen: what a memo saves is a scan of its length, and a megabyte
// of filler must not make way for the kilobyte path of one scenario.
func (c *Counts) class(s string) int {
	if len(s) < memoFrom {
		return ByteClass(s)
	}
	p := unsafe.StringData(s)
	m := &c.memo[memoSlot(p)]
	switch {
	case m.p == p && (len(s) == m.n || m.class == ASCII && len(s) < m.n):
		return m.class
	case len(s) < m.n:
		return ByteClass(s)
	}
	*m = classMemo{p, len(s), ByteClass(s)}
	return m.class
}

// memoBits is the log2 of the number of memo slots.
const memoBits = 4

// memoSlot returns the memo slot of the string at p: the top memoBits
// bits of p times 2^64/φ (Fibonacci hashing), which depend on all of p's
// bits. Low bits alone would not do: large strings start at page
// boundaries, where they are all zero, and would share one slot.
func memoSlot(p *byte) int {
	return int(uint64(uintptr(unsafe.Pointer(p))) * 0x9e3779b97f4a7c15 >> (64 - memoBits))
}

// Hits returns the count of point i of the Catalog.
func (c *Counts) Hits(i int) uint64 {
	if c.hits == nil {
		return 0
	}
	return c.hits[i]
}

// Slice returns the counts in Catalog order, in a new slice.
func (c *Counts) Slice() []uint64 {
	out := make([]uint64, len(catalog))
	copy(out, c.hits)
	return out
}

// Reset sets every count of c to zero and lets go of the last scenario
// counted, keeping the memory counting uses.
func (c *Counts) Reset() {
	clear(c.hits)
	if c.run != nil {
		c.run.finish()
	}
}

// Add adds every count of o to c.
func (c *Counts) Add(o *Counts) {
	if o.hits == nil {
		return
	}
	c.init()
	for i, n := range o.hits {
		c.hits[i] += n
	}
}

func (c *Counts) init() {
	if c.hits == nil {
		c.hits = make([]uint64, len(catalog))
	}
}

func (c *Counts) hit(i int) {
	c.init()
	c.hits[i]++
}

// Find returns the index in the Catalog of the point named dim, group and
// name, and false when there is none.
func Find(dim, group, name string) (int, bool) {
	for i, p := range catalog {
		if p.Dim == dim && p.Group == group && p.Name == name {
			return i, true
		}
	}
	return 0, false
}
