// Package sut is the registry of sandboxes under test: it turns a --sut
// value (or SBXFUZZ_SUT, or a user's own factory) into a Target the harness
// starts sessions of: "reference", "mutant:NAME", "exec:COMMAND" (a
// sandbox in another process, SPEC §12), and sandboxes a program registers
// by name (sbxcli.Main).
package sut

import (
	"fmt"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Reference is the name of the reference sandbox.
const Reference = "reference"

// MutantPrefix starts the name of every mutant: "mutant:raw-prefix".
const MutantPrefix = "mutant:"

// ExecPrefix starts the name of a sandbox in another process, speaking
// sbxfuzz/1 (SPEC §12): "exec:python3 sandbox.py".
const ExecPrefix = "exec:"

// EnvVar names the environment variable the fuzz targets read the sandbox
// under test from.
const EnvVar = "SBXFUZZ_SUT"

// Target is a sandbox under test as the harness starts it. Each worker of a
// campaign starts a session of its own, so that a sandbox behind a process
// is started once per worker and reused across scenarios, never shared
// between goroutines.
type Target struct {
	Name string // the --sut value that names it
	// Start begins a session: a factory for one goroutine at a time, and a
	// function that ends the session (stopping what it started). In-process
	// sandboxes give every session the same factory.
	Start func() (f core.Factory, end func() error, err error)
	// Adapt, when set, rewrites each generated scenario into one the
	// sandbox can express, or returns nil to skip it (SPEC §13: only
	// what a real sandbox can be asked is drawn).
	Adapt func(*scenario.Scenario) *scenario.Scenario
	// NotApplicable lists the invariants that cannot be observed on the
	// sandbox, by ID, with the reason; reports show them as n/a.
	NotApplicable map[string]string
}

// OSRoot is the name of the os.Root sandbox for real files (SPEC §13).
const OSRoot = realsut.OSRootName

// Real is the Target of a sandbox that acts on the real disk.
func Real(a realsut.Adapter) Target {
	return Target{Name: a.Name, Start: a.Start, Adapt: a.Adapt, NotApplicable: a.NotApplicable}
}

// Static is the Target of an in-process factory f, which must be safe to
// call from several goroutines at once (each call builds a new sandbox).
func Static(name string, f core.Factory) Target {
	return Target{Name: name, Start: func() (core.Factory, func() error, error) {
		return f, func() error { return nil }, nil
	}}
}

// Lookup returns the Target named by a --sut value: the empty name and
// "reference" are the reference, "mutant:NAME" a mutant, and any other name
// one of extra by its Name.
func Lookup(name string, extra ...Target) (Target, error) {
	switch {
	case name == "" || name == Reference:
		return Static(Reference, core.ReferenceFactory), nil
	case strings.HasPrefix(name, MutantPrefix):
		short := strings.TrimPrefix(name, MutantPrefix)
		if m, ok := mutants.Lookup(short); ok {
			return Static(name, m.Factory), nil
		}
		return Target{}, fmt.Errorf("unknown mutant %q (known: %s)", short, strings.Join(mutants.Names(), ", "))
	case name == OSRoot:
		return Real(realsut.OSRoot), nil
	case strings.HasPrefix(name, realsut.MCPPrefix):
		a, err := realsut.MCP(strings.TrimPrefix(name, realsut.MCPPrefix))
		if err != nil {
			return Target{}, fmt.Errorf("%s %v", realsut.MCPPrefix, err)
		}
		return Real(a), nil
	case strings.HasPrefix(name, ExecPrefix):
		start, err := proc.Sessions(strings.TrimPrefix(name, ExecPrefix))
		if err != nil {
			return Target{}, fmt.Errorf("%s: %v", ExecPrefix, err)
		}
		return Target{Name: name, Start: start}, nil
	}
	for _, t := range extra {
		if t.Name == name {
			return t, nil
		}
	}
	known := []string{fmt.Sprintf("%q", Reference), fmt.Sprintf("%q followed by a mutant name", MutantPrefix), fmt.Sprintf("%q followed by a command", ExecPrefix), fmt.Sprintf("%q", OSRoot), fmt.Sprintf("%q followed by an MCP server's command", realsut.MCPPrefix)}
	for _, t := range extra {
		known = append(known, fmt.Sprintf("%q", t.Name))
	}
	return Target{}, fmt.Errorf("unknown sandbox %q: want %s", name, strings.Join(known, ", or "))
}
