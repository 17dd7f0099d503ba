package mutants

import (
	"sort"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// Mutant is a sandbox with one defect.
type Mutant struct {
	Name    string       // e.g. "raw-prefix"
	RedFlag string       // one sentence: the defect and the review red flag it embodies
	Factory core.Factory // builds it
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
