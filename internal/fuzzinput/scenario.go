package fuzzinput

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// The sandbox under test, resolved once from the environment.
var (
	sutOnce    sync.Once
	sutName    string
	sutFactory core.Factory
	sutErr     error
)

// SUT returns the name and factory of the sandbox the fuzz targets judge:
// the one sut.EnvVar (SBXFUZZ_SUT) names, the reference when it is unset.
// An unknown name is an error, never a silent fallback to the reference.
// The environment is read once; SUT is safe for concurrent use.
func SUT() (string, core.Factory, error) {
	sutOnce.Do(func() {
		sutName = os.Getenv(sut.EnvVar)
		if sutName == "" {
			sutName = sut.Reference
		}
		var t sut.Target
		if t, sutErr = sut.Lookup(sutName); sutErr == nil {
			// One session for the life of the process: a fuzz worker runs
			// one input at a time, and ends with its process.
			sutFactory, _, sutErr = t.Start()
		}
		if sutErr != nil {
			sutErr = fmt.Errorf("%s=%s: %w", sut.EnvVar, sutName, sutErr)
		}
	})
	return sutName, sutFactory, sutErr
}

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

// CheckScenario is FuzzScenario's body: it decodes data (DecodeLabelled)
// and judges the scenario with the full oracle, on the calling goroutine,
// against the sandbox SUT names. It returns nil when every invariant holds,
// a *ScenarioError listing the findings otherwise, and an error when the
// sandbox under test is unknown.
func CheckScenario(data []byte) error {
	name, f, err := SUT()
	if err != nil {
		return err
	}
	return CheckScenarioOn(name, f, data)
}

// CheckScenarioOn is CheckScenario on the sandbox f builds, called name,
// judged inline: no hang bound (go test -fuzz reports a hung input itself).
func CheckScenarioOn(name string, f core.Factory, data []byte) error {
	in := decodeInput(data)
	cov := coverages.Get().(*oracle.Coverage)
	fs := oracle.CheckInline(f, in.caseOf(), cov)
	coverages.Put(cov)
	if len(fs) == 0 {
		in.recycle()
		return nil
	}
	return &ScenarioError{SUT: name, Mode: in.mode, Findings: fs, Scenario: in.scenario()}
}
