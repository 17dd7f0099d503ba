// Package sut resolves the --sut flag (and SBXFUZZ_SUT) to the factory of a
// sandbox under test: "reference", or "mutant:NAME" for a registered mutant.
package sut

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// Reference is the name of the reference sandbox.
const Reference = "reference"

// MutantPrefix starts the name of every mutant: "mutant:raw-prefix".
const MutantPrefix = "mutant:"

var (
	mu      sync.RWMutex
	mutants = map[string]Mutant{}
)

// Mutant is a sandbox that is wrong in exactly one way.
type Mutant struct {
	Name    string       // e.g. "raw-prefix"
	RedFlag string       // one sentence: the defect, and which review red flag it embodies
	Factory core.Factory // builds it
}

// Register adds a mutant; it panics on a duplicate name (a programming error).
func Register(m Mutant) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := mutants[m.Name]; dup {
		panic("sut: duplicate mutant " + m.Name)
	}
	mutants[m.Name] = m
}

// Mutants returns the registered mutants sorted by name.
func Mutants() []Mutant {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Mutant, 0, len(mutants))
	for _, m := range mutants {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the factory named by a --sut value. The empty name is the
// reference.
func Lookup(name string) (core.Factory, error) {
	switch {
	case name == "" || name == Reference:
		return core.ReferenceFactory, nil
	case strings.HasPrefix(name, MutantPrefix):
		mu.RLock()
		m, ok := mutants[strings.TrimPrefix(name, MutantPrefix)]
		mu.RUnlock()
		if ok {
			return m.Factory, nil
		}
		return nil, fmt.Errorf("unknown mutant %q (%s)", strings.TrimPrefix(name, MutantPrefix), known())
	}
	return nil, fmt.Errorf("unknown sandbox %q: want %q or %q followed by a mutant name", name, Reference, MutantPrefix)
}

func known() string {
	ms := Mutants()
	if len(ms) == 0 {
		return "no mutants are registered"
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return "known: " + strings.Join(names, ", ")
}
