// Package replay runs a parsed scenario on a sandbox under the oracle and
// checks its expectations. The replay command and the corpus glob test
// share it, so a committed scenario means the same thing in both.
package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Step is one op of a replay: what the oracle observed, and the
// expectation it was held to.
type Step struct {
	oracle.StepReport
	Line   int              // source line of the op, 0 when unknown
	Expect *scenario.Expect // nil when the scenario expects nothing
	Unmet  string           // why the expectation failed, "" when met
}

// Outcome is a whole replay.
type Outcome struct {
	Name     string
	Steps    []Step
	Findings []oracle.Finding
}

// Unmet returns the steps whose expectations failed.
func (o *Outcome) Unmet() []Step {
	var out []Step
	for _, s := range o.Steps {
		if s.Unmet != "" {
			out = append(out, s)
		}
	}
	return out
}

// Failed reports whether the replay found anything: a violated invariant
// or an unmet expectation.
func (o *Outcome) Failed() bool { return len(o.Findings) > 0 || len(o.Unmet()) > 0 }

// Journal returns every journal entry of the run, in order.
func (o *Outcome) Journal() []core.Entry {
	var out []core.Entry
	for _, s := range o.Steps {
		out = append(out, s.Entries...)
	}
	return out
}

// Run replays sc on the sandbox f builds, watching every op with the oracle
// (every op runs, after a halt too, so latched halts are checked), and
// holds each op to its expectation. An op that hangs is a total finding and
// ends the steps the Outcome shows: no step is recorded after Run returns. The error is for a scenario that cannot
// run at all (an invalid grant); findings and unmet expectations are in the
// Outcome.
func Run(name string, sc *scenario.Scenario, f core.Factory, cov *oracle.Coverage) (*Outcome, error) {
	return RunWithin(name, sc, f, cov, 0)
}

// RunWithin is Run with each op bounded by timeout (0: the oracle's
// default) before it is a hang.
func RunWithin(name string, sc *scenario.Scenario, f core.Factory, cov *oracle.Coverage, timeout time.Duration) (*Outcome, error) {
	return RunWith(name, sc, f, cov, oracle.Options{Timeout: timeout})
}

// RunWith is Run with the oracle's timeouts of opt (its Observe is
// replaced).
func RunWith(name string, sc *scenario.Scenario, f core.Factory, cov *oracle.Coverage, opt oracle.Options) (*Outcome, error) {
	c, err := oracle.NewCase(sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := &Outcome{Name: name, Steps: make([]Step, 0, len(sc.Steps))}
	if cov == nil {
		cov = new(oracle.Coverage)
	}
	opt.Observe = func(r oracle.StepReport) {
		src := sc.Steps[r.Step-1]
		r.Entries = slices.Clone(r.Entries)
		out.Steps = append(out.Steps, Step{StepReport: r, Line: src.Line, Expect: src.Expect, Unmet: unmet(src.Expect, r.Result)})
	}
	out.Findings = oracle.Check(f, c, cov, opt)
	return out, nil
}

// unmet says how res fails e, or "" when it meets it.
func unmet(e *scenario.Expect, res core.Result) string {
	if e == nil {
		return ""
	}
	if res.Kind != e.Kind || e.HasData && res.Data != e.Data {
		return fmt.Sprintf("got %s, want %s", Describe(res.Kind, res.Data, true), Describe(e.Kind, e.Data, e.HasData))
	}
	return ""
}

// Describe writes a kind and, when there is any, its data as a scenario
// would: `ok hello`, `ok ""`, `fs_read_denied`; data longer than
// oracle.MaxQuoted bytes is cut there, followed by how long it was
// (oracle.QuoteData).
func Describe(k core.Kind, data string, withData bool) string {
	if !withData || (data == "" && k != core.OK) {
		return k.String()
	}
	return k.String() + " " + oracle.QuoteData(data)
}
