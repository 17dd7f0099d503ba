package mutants

import (
	"sort"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// Mutant is a sandbox with one defect.
type Mutant struct {
	Name    string // e.g. "raw-prefix"
	RedFlag string // one sentence: the defect and the review red flag it embodies
	// Dimension is the SPEC dimension whose points expose the defect: one
	// of Dimensions(), e.g. "internal-range" for a mutant that misjudges
	// some internal addresses, so a generator must draw that dimension's
	// points (every range and its edges) to kill it. It is "" for a defect
	// no one dimension exposes (ordering, latching, links, the grant
	// itself).
	Dimension string
	Factory   core.Factory // builds it
}

// The SPEC dimensions a Mutant's Dimension names: each is a family of
// points a generator has to reach, edges included, for the defects that
// hide there. They are the IDs of the SPEC dimension table that `sbxfuzz
// report` shows, whose catalogue lists each dimension's points (a test of
// the table holds the two lists equal).
const (
	DimInternalRange = "internal-range" // internal addresses of SPEC §6: every range, its low and high edges, in every spelling
	DimBudget        = "budget"         // one budget at its edges: 0, usage landing exactly on the cap, math.MaxInt64
	DimBudgetPair    = "budget-pair"    // two budgets crossed by the same op: which halt SPEC §5 gives first
	DimClock         = "clock"          // the injected tick clock: large steps, ticks past 2^63−1 (SPEC §7)
	DimBytes         = "bytes"          // the bytes of arguments and data: NUL, invalid UTF-8, multi-byte characters
	DimPathShape     = "path-shape"     // the shape of a path against a root: siblings, root itself, trailing slash, dot segments
	DimHostShape     = "host-shape"     // the spelling of a host against net_hosts: case, trailing dot, unlisted names
)

// Dimensions returns the seven SPEC dimension IDs a Mutant's Dimension may
// name (besides ""), in the table's order.
func Dimensions() []string {
	return []string{DimInternalRange, DimBudget, DimBudgetPair, DimClock, DimBytes, DimPathShape, DimHostShape}
}

// All returns every mutant, sorted by name.
func All() []Mutant {
	out := append([]Mutant(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the mutants' names, sorted.
func Names() []string {
	var out []string
	for _, m := range All() {
		out = append(out, m.Name)
	}
	return out
}

// Lookup returns the mutant called name.
func Lookup(name string) (Mutant, bool) {
	for _, m := range all {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}
