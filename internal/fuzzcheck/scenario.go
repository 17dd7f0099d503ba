package fuzzcheck

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzdecode"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// sandbox is the sandbox under test of a fuzz binary: the one sut.EnvVar
// names (the reference when it is unset), looked up in internal/sut's
// registry, as --sut is, and started on first use. Its session lasts as
// long as the process: a fuzz worker runs one input at a time and ends
// with its process. An unknown name is an error, never a silent fallback
// to the reference. A sandbox is safe for concurrent use.
type sandbox struct {
	lookup  func(name string) (sut.Target, error)
	once    sync.Once
	name    string
	factory core.Factory
	adapt   func(*scenario.Scenario) *scenario.Scenario
	err     error
}

// underTest is the sandbox the fuzz targets judge.
var underTest = &sandbox{lookup: func(name string) (sut.Target, error) { return sut.Lookup(name) }}

// get returns the name and factory of the sandbox. The environment is read
// once.
func (s *sandbox) get() (string, core.Factory, error) {
	s.once.Do(func() {
		s.name = os.Getenv(sut.EnvVar)
		if s.name == "" {
			s.name = sut.Reference
		}
		t, err := s.lookup(s.name)
		if err == nil {
			s.factory, _, err = t.Start()
			s.adapt = t.Adapt
		}
		if err != nil {
			s.factory, s.adapt, s.err = nil, nil, fmt.Errorf("%s=%s: %w", sut.EnvVar, s.name, err)
		}
	})
	return s.name, s.factory, s.err
}

// SUT returns the name and factory of the sandbox the fuzz targets judge:
// the one SBXFUZZ_SUT (sut.EnvVar) names, any --sut value, the reference
// when it is unset. The environment is read, and the sandbox started, once
// a process.
func SUT() (string, core.Factory, error) { return underTest.get() }

// Adapts reports whether the sandbox SUT returns has an adapter (SPEC
// §13): whether a scenario drawn for any sandbox must be rewritten before
// it judges it. It is false when the sandbox is unknown.
func Adapts() bool {
	underTest.get()
	return underTest.adapt != nil
}

// CheckScenario is FuzzScenario's body: it decodes data
// (fuzzdecode.Read) and judges the scenario with the full oracle, on the
// calling goroutine, against the sandbox SUT returns. It returns nil when
// every invariant holds, a *ScenarioError listing the findings otherwise,
// and an error when the sandbox is unknown or cannot start. A sandbox with
// an adapter judges the adapted scenario, as a campaign does, and passes an
// input the adapter leaves nothing of.
func CheckScenario(data []byte) error { return underTest.check(data) }

func (s *sandbox) check(data []byte) error {
	name, f, err := s.get()
	if err != nil {
		return err
	}
	if s.adapt != nil {
		return checkAdapted(name, f, s.adapt, data)
	}
	return checkOn(name, f, data)
}

// checkOn judges data on the sandbox f builds, called name, inline: no
// hang bound (go test -fuzz reports a hung input itself).
func checkOn(name string, f core.Factory, data []byte) error {
	in := fuzzdecode.Read(data)
	fs := inline(f, in.Case())
	if len(fs) == 0 {
		in.Release()
		return nil
	}
	return &ScenarioError{SUT: name, Mode: in.Mode, Findings: fs, Scenario: in.Scenario()}
}

// checkAdapted is checkOn for a sandbox whose scenarios go through adapt
// first.
func checkAdapted(name string, f core.Factory, adapt func(*scenario.Scenario) *scenario.Scenario, data []byte) error {
	in := fuzzdecode.Read(data)
	sc := in.Scenario() // lists of its own: adapt may keep them
	mode := in.Mode
	in.Release()
	if sc = adapt(sc); sc == nil {
		return nil // nothing of it the sandbox can express
	}
	c, err := judge.NewCase(sc)
	if err != nil {
		return fmt.Errorf("the adapter of %s made a scenario with an invalid grant: %w", name, err)
	}
	if fs := inline(f, c); len(fs) > 0 {
		return &ScenarioError{SUT: name, Mode: mode, Findings: fs, Scenario: sc}
	}
	return nil
}

// coverages recycles the oracle's counters between execs. The fuzz targets
// never read them, so they are not cleared either.
var coverages = sync.Pool{New: func() any { return new(oracle.Coverage) }}

// inline checks c inline on the sandboxes f builds, counting into pooled
// coverage nobody reads.
func inline(f core.Factory, c judge.Case) []oracle.Finding {
	cov := coverages.Get().(*oracle.Coverage)
	fs := judge.CheckInline(f, c, cov)
	coverages.Put(cov)
	return fs
}

// ScenarioError is what CheckScenario returns when the oracle finds
// violations: every finding and the decoded scenario.
type ScenarioError struct {
	SUT      string
	Mode     fuzzdecode.Mode
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
