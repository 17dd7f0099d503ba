// Package fuzzsut is the sandbox under test of the fuzz binaries that judge
// any sandbox the command line can (internal/sut.Lookup): "exec:COMMAND"
// (SPEC §12), "osroot" and "mcp:COMMAND" (SPEC §13) as well as the
// reference and the mutants. Package fuzz/external's FuzzScenario and
// package fuzz/property's FuzzProperty use it; package fuzz does not, so
// that its binary links none of those sandboxes' code, whose coverage
// counters the Go fuzzer would clear, snapshot and compare on every exec
// (fuzzinput.Sandbox).
package fuzzsut

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// Sandbox is the sandbox fuzzinput.EnvVar (SBXFUZZ_SUT) names, any the
// command line knows; a session of it, started on first use, lasts as long
// as the process (a fuzz worker runs one input at a time and ends with its
// process).
var Sandbox = fuzzinput.NewSandbox(lookup)

func lookup(name string) (core.Factory, fuzzinput.Adapter, error) {
	t, err := sut.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	f, _, err := t.Start()
	return f, t.Adapt, err
}

// CheckScenario is package fuzz/external's FuzzScenario body:
// fuzzinput.Sandbox.CheckScenario on Sandbox.
func CheckScenario(data []byte) error { return Sandbox.CheckScenario(data) }
