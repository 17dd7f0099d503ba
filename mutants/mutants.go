package mutants

import (
	"slices"
	"sort"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
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
// hide there. They are internal/dims's IDs, whose catalog lists each
// dimension's points.
const (
	DimInternalRange = dims.InternalRange // internal addresses of SPEC §6: every range, its low and high edges, in every spelling
	DimBudget        = dims.Budget        // one budget at its edges: 0, usage landing exactly on the cap, math.MaxInt64
	DimBudgetPair    = dims.BudgetPair    // two budgets crossed by the same op: which halt SPEC §5 gives first
	DimClock         = dims.Clock         // the injected tick clock: large steps, ticks past 2^63−1 (SPEC §7)
	DimBytes         = dims.Bytes         // the bytes of arguments and data: NUL, invalid UTF-8, multi-byte characters
	DimPathShape     = dims.PathShape     // the shape of a path against a root: siblings, root itself, trailing slash, dot segments
	DimHostShape     = dims.HostShape     // the spelling of a host against net_hosts: case, trailing dot, unlisted names
)

// Dimensions returns the seven SPEC dimension IDs a Mutant's Dimension may
// name (besides ""): a copy of dims.IDs, in its order.
func Dimensions() []string { return slices.Clone(dims.IDs) }

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
