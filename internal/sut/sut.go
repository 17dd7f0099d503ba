// Package sut resolves the --sut flag (and SBXFUZZ_SUT) to the factory of a
// sandbox under test: "reference", or "mutant:NAME" for one of the mutants.
package sut

import (
	"fmt"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/mutants"
)

// Reference is the name of the reference sandbox.
const Reference = "reference"

// MutantPrefix starts the name of every mutant: "mutant:raw-prefix".
const MutantPrefix = "mutant:"

// EnvVar names the environment variable the fuzz targets read the sandbox
// under test from.
const EnvVar = "SBXFUZZ_SUT"

// Lookup returns the factory named by a --sut value. The empty name is the
// reference.
func Lookup(name string) (core.Factory, error) {
	switch {
	case name == "" || name == Reference:
		return core.ReferenceFactory, nil
	case strings.HasPrefix(name, MutantPrefix):
		short := strings.TrimPrefix(name, MutantPrefix)
		if m, ok := mutants.Lookup(short); ok {
			return m.Factory, nil
		}
		return nil, fmt.Errorf("unknown mutant %q (known: %s)", short, strings.Join(mutants.Names(), ", "))
	}
	return nil, fmt.Errorf("unknown sandbox %q: want %q or %q followed by a mutant name", name, Reference, MutantPrefix)
}
