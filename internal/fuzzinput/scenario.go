package fuzzinput

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// EnvVar names the environment variable the fuzz targets read the sandbox
// under test from (internal/sut.EnvVar, which the command line reads too).
const EnvVar = "SBXFUZZ_SUT"

// Lookup turns the name of a sandbox into the factory of a session of it
// that lasts as long as the process, and the adapter its scenarios go
// through (nil for none).
type Lookup func(name string) (core.Factory, Adapter, error)

// Adapter rewrites a decoded scenario into one the sandbox can express, or
// returns nil when nothing of it can be: internal/sut.Target.Adapt, for the
// sandboxes on the real disk and behind MCP servers (SPEC §13).
type Adapter func(*scenario.Scenario) *scenario.Scenario

// Sandbox is the sandbox under test of a fuzz binary: the one EnvVar names,
// the reference when it is unset, resolved by the binary's Lookup on first
// use. An unknown name is an error, never a silent fallback to the
// reference. A Sandbox is safe for concurrent use.
//
// Which lookup a binary uses decides what it links, and the Go fuzzer pays
// for every coverage counter a test binary links on every exec (it clears,
// snapshots and compares them all): package fuzz resolves only the
// sandboxes of its own process (InProcess), and the sandboxes behind a
// process, a disk or an MCP server are fuzzed from a binary of their own
// (internal/fuzzsut, package fuzz/external).
type Sandbox struct {
	lookup  Lookup
	once    sync.Once
	name    string
	factory core.Factory
	adapt   Adapter
	err     error
}

// NewSandbox returns the sandbox under test that lookup resolves.
func NewSandbox(lookup Lookup) *Sandbox { return &Sandbox{lookup: lookup} }

// Get returns the name and factory of the sandbox under test. The
// environment is read once.
func (s *Sandbox) Get() (string, core.Factory, error) {
	s.once.Do(func() {
		s.name = os.Getenv(EnvVar)
		if s.name == "" {
			s.name = ReferenceName
		}
		if s.factory, s.adapt, s.err = s.lookup(s.name); s.err != nil {
			s.factory, s.adapt, s.err = nil, nil, fmt.Errorf("%s=%s: %w", EnvVar, s.name, s.err)
		}
	})
	return s.name, s.factory, s.err
}

// Adapts reports whether the sandbox under test has an adapter: whether a
// scenario drawn for any sandbox must be rewritten before it judges it.
// It is false when the sandbox is unknown.
func (s *Sandbox) Adapts() bool {
	s.Get()
	return s.adapt != nil
}

// CheckScenario is FuzzScenario's body: it decodes data (DecodeLabelled)
// and judges the scenario with the full oracle, on the calling goroutine,
// against the sandbox under test. It returns nil when every invariant
// holds, a *ScenarioError listing the findings otherwise, and an error when
// the sandbox under test is unknown. A sandbox with an adapter judges the
// adapted scenario, and passes an input the adapter leaves nothing of. In
// a go test -fuzz worker it first grows the goroutine's stack (growStack).
func (s *Sandbox) CheckScenario(data []byte) error {
	if inWorker.Load() {
		growStack()
	}
	name, f, err := s.Get()
	if err != nil {
		return err
	}
	if s.adapt != nil {
		return checkAdapted(name, f, s.adapt, data)
	}
	return CheckScenarioOn(name, f, data)
}

// checkAdapted is CheckScenarioOn for a sandbox whose scenarios go through
// adapt first, as a campaign's do.
func checkAdapted(name string, f core.Factory, adapt Adapter, data []byte) error {
	in := decodeInput(data)
	sc := in.scenario() // lists of its own: adapt may keep them
	mode := in.mode
	in.recycle()
	if sc = adapt(sc); sc == nil {
		return nil // nothing of it the sandbox can express
	}
	c, err := oracle.NewCase(sc)
	if err != nil {
		return fmt.Errorf("the adapter of %s made a scenario with an invalid grant: %w", name, err)
	}
	if fs := judge(f, c); len(fs) > 0 {
		return &ScenarioError{SUT: name, Mode: mode, Findings: fs, Scenario: sc}
	}
	return nil
}

// The names of the sandboxes InProcess resolves, as internal/sut names
// them (a test of internal/fuzzsut keeps the two in step).
const (
	ReferenceName = "reference" // the reference sandbox
	MutantPrefix  = "mutant:"   // starts the name of a mutant
)

// InProcess is the sandbox under test of package fuzz's targets: the
// reference or one of the mutants, the sandboxes that live in the fuzz
// binary's own process.
var InProcess = NewSandbox(LookupInProcess)

// LookupInProcess is InProcess's Lookup: the reference and the mutants, by the
// names internal/sut gives them; any other name is an error that says
// where to fuzz it.
func LookupInProcess(name string) (core.Factory, Adapter, error) {
	if name == ReferenceName {
		return core.ReferenceFactory, nil, nil
	}
	if short, ok := strings.CutPrefix(name, MutantPrefix); ok {
		if m, ok := mutants.Lookup(short); ok {
			return m.Factory, nil, nil
		}
		return nil, nil, fmt.Errorf("unknown mutant %q (known: %s)", short, strings.Join(mutants.Names(), ", "))
	}
	return nil, nil, fmt.Errorf("package fuzz judges only the sandboxes of its own process (%q, or %q followed by a mutant name); "+
		"any other sandbox the command line knows (exec:COMMAND, osroot, mcp:COMMAND) is fuzzed with the FuzzScenario of ./fuzz/external", ReferenceName, MutantPrefix)
}

// SUT returns the name and factory of the sandbox package fuzz's targets
// judge: InProcess.Get.
func SUT() (string, core.Factory, error) { return InProcess.Get() }

// ScenarioError is what CheckScenario returns when the oracle finds
// violations: every finding and the decoded scenario.
type ScenarioError struct {
	SUT      string
	Mode     Mode
	Findings []oracle.Finding
	Scenario *scenario.Scenario
}

// Error lists the findings in plain words, one a line, then the decoded
// scenario as canonical .sbx text.
func (e *ScenarioError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d invariant violation(s) on %s (input decoded in %s mode):\n", len(e.Findings), e.SUT, e.Mode)
	for _, f := range e.Findings {
		b.WriteString("  " + f.String() + "\n")
	}
	b.WriteString("--- the decoded scenario (sbxfuzz import turns this input into a minimized .sbx):\n")
	b.Write(e.Scenario.Format())
	return b.String()
}

// coverages recycles the oracle's counters between execs. The fuzz targets
// never read them, so they are not cleared either: clearing 6 KB an exec
// would cost more than the counting.
var coverages = sync.Pool{New: func() any { return new(oracle.Coverage) }}

// CheckScenario is package fuzz's FuzzScenario body: Sandbox.CheckScenario
// on InProcess.
func CheckScenario(data []byte) error { return InProcess.CheckScenario(data) }

// CheckScenarioOn is CheckScenario on the sandbox f builds, called name,
// judged inline: no hang bound (go test -fuzz reports a hung input itself).
func CheckScenarioOn(name string, f core.Factory, data []byte) error {
	in := decodeInput(data)
	fs := judge(f, in.caseOf())
	if len(fs) == 0 {
		in.recycle()
		return nil
	}
	return &ScenarioError{SUT: name, Mode: in.mode, Findings: fs, Scenario: in.scenario()}
}

// judge checks c inline on the sandboxes f builds, counting into pooled
// coverage nobody reads.
func judge(f core.Factory, c oracle.Case) []oracle.Finding {
	cov := coverages.Get().(*oracle.Coverage)
	fs := oracle.CheckInline(f, c, cov)
	coverages.Put(cov)
	return fs
}
