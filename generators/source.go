package generators

import (
	"math/bits"
	"math/rand/v2"
)

// Source is the randomness generators draw from. Two implementations: one
// seeded PCG here (campaigns: fast, deterministic), and one over *rapid.T in
// internal/rapidsrc (properties: shrinking), kept apart so that the command
// line never links rapid. Generators draw nothing else: no global randomness, no
// clock.
type Source interface {
	// Intn returns a value in [0, n); n > 0.
	Intn(n int) int
}

// NewSource returns a deterministic Source for (seed, stream) using
// math/rand/v2's PCG: the same pair always gives the same draws. It panics
// when Intn is asked for n <= 0. A Source is not safe for concurrent use;
// give each worker its own stream.
func NewSource(seed, stream uint64) Source {
	s := new(pcgSource)
	s.pcg.Seed(seed, stream)
	return s
}

type pcgSource struct{ pcg rand.PCG }

// Intn is Lemire's multiply-and-reject: unbiased, and one multiplication in
// the common case.
func (s *pcgSource) Intn(n int) int {
	if n <= 0 {
		panic("generators: Intn of a non-positive n")
	}
	un := uint64(n)
	hi, lo := bits.Mul64(s.pcg.Uint64(), un)
	if lo < un {
		hi = s.redraw(un, hi, lo)
	}
	return int(hi)
}

// redraw finishes Intn(n), un = n, when the first product hi:lo has its
// low half below n: it draws again while that half is below 2⁶⁴ mod n, and
// returns the accepted high half. The draw's Intn shares it.
func (s *pcgSource) redraw(un, hi, lo uint64) uint64 {
	for thresh := -un % un; lo < thresh; {
		hi, lo = bits.Mul64(s.pcg.Uint64(), un)
	}
	return hi
}

// Grouper is a Source that can mark the draws of one op slot as a unit, so
// that shrinking can delete a whole slot at once: Group calls fn, whose
// draws (from the same Source) form one group. The rapid-backed Source of
// the tests and the public property implements it.
type Grouper interface {
	Source
	Group(fn func())
}

// pick returns one element of xs, which must not be empty.
func pick[T any](src Source, xs []T) T { return xs[src.Intn(len(xs))] }

// oneIn reports true with probability 1/n. A draw shrunk to 0 gives false:
// use it to add the rarer, richer thing.
func oneIn(src Source, n int) bool { return src.Intn(n) == n-1 }

// A weightTable is a fixed list of weights for weighted, summed once: the
// world gen draws from a dozen of them a scenario, and summing the weights
// again for each draw was most of what the draw cost.
type weightTable struct {
	total int
	ends  []int // ends[i] is the sum of the weights up to and including i's
}

// weights returns the weightTable of w, whose sum must be positive.
func weights(w ...int) weightTable {
	t := weightTable{ends: make([]int, len(w))}
	for i, x := range w {
		t.total += x
		t.ends[i] = t.total
	}
	if t.total <= 0 {
		panic("generators: weights that sum to nothing")
	}
	return t
}

// draw returns weighted(src, w) for the w t was made of: the same draw,
// and the same index for it.
func (t *weightTable) draw(src Source) int {
	r := src.Intn(t.total)
	for i, end := range t.ends {
		if r < end {
			return i
		}
	}
	return len(t.ends) - 1
}

// weighted returns an index drawn in proportion to w, whose sum must be
// positive. Index 0 is what a draw of 0 gives, so it shrinks there. For
// weights fixed in the code, a weightTable draws the same, faster.
func weighted(src Source, w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	r := src.Intn(total)
	for i, x := range w {
		if r < x {
			return i
		}
		r -= x
	}
	return len(w) - 1
}
