// Package replay runs a parsed scenario on a sandbox under the oracle and
// checks its expectations. The replay command and the corpus glob test
// share it, so a committed scenario means the same thing in both.
package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Step is one op of a replay: what the oracle observed, and the
// expectation it was held to.
type Step struct {
	judge.StepReport
	Line   int              // source line of the op, 0 when unknown
	Expect *scenario.Expect // nil when the scenario expects nothing
	Unmet  string           // why the expectation failed, "" when met
	// Failed says that the op gave no result: it panicked, hung, or its
	// sandbox failed (a total finding says how). Result and Usage are
	// then zero, and Entries empty.
	Failed bool
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
func (o *Outcome) Journal() []refworld.Entry {
	var out []refworld.Entry
	for _, s := range o.Steps {
		out = append(out, s.Entries...)
	}
	return out
}

// Report returns the outcome as package reports renders it (the step
// table of sbxfuzz replay): each step's op and result in a scenario's
// words, and the findings as violations.
func (o *Outcome) Report() *reports.Replay {
	r := &reports.Replay{File: o.Name, Steps: make([]reports.ReplayStep, 0, len(o.Steps))}
	for _, s := range o.Steps {
		r.Steps = append(r.Steps, reportStep(s))
	}
	for _, f := range o.Findings {
		r.Violations = append(r.Violations, reports.Violation{Invariant: f.Invariant.String(), Step: f.Step, Detail: f.Detail, Hang: f.Hang})
	}
	return r
}

// reportStep is one step as package reports renders it.
func reportStep(s Step) reports.ReplayStep {
	rs := reports.ReplayStep{Step: s.Step, Line: s.Line, Op: judge.FormatOp(s.Op), Kind: s.Result.Kind.String(), Data: s.Result.Data,
		Result: Describe(s.Result.Kind, s.Result.Data, s.Result.Data != ""), Hard: s.Result.Hard,
		OpsUsed: s.Usage.Ops, WallUsed: s.Usage.Wall, OutputUsed: s.Usage.Output, Unmet: s.Unmet, Violated: s.Violated}
	if s.Failed {
		rs.Kind, rs.Result = "", "no result (total)"
	}
	for _, en := range s.Entries {
		rs.Journal = append(rs.Journal, en.String())
	}
	return rs
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

// RunWith is Run with the oracle's timeouts of opt.
func RunWith(name string, sc *scenario.Scenario, f core.Factory, cov *oracle.Coverage, opt oracle.Options) (*Outcome, error) {
	c, err := judge.NewCase(sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := &Outcome{Name: name, Steps: make([]Step, 0, len(sc.Steps))}
	if cov == nil {
		cov = new(oracle.Coverage)
	}
	observe := func(r judge.StepReport) {
		src := sc.Steps[r.Step-1]
		r.Entries = slices.Clone(r.Entries)
		out.Steps = append(out.Steps, Step{StepReport: r, Line: src.Line, Expect: src.Expect, Unmet: unmet(src.Expect, r.Result)})
	}
	out.Findings = judge.Check(f, c, cov, judge.Options{Timeout: opt.Timeout, StartTimeout: opt.StartTimeout, Observe: observe})
	// The op that gave no result ends the steps observed: it is shown
	// too, so that the table names the op the total finding is of.
	for _, fd := range out.Findings {
		if fd.Invariant != oracle.Total || fd.Step != len(out.Steps)+1 || fd.Step > len(sc.Steps) {
			continue
		}
		src := sc.Steps[fd.Step-1]
		failed := Step{StepReport: judge.StepReport{Step: fd.Step, Op: src.Op}, Line: src.Line, Expect: src.Expect, Failed: true}
		if src.Expect != nil {
			failed.Unmet = "the op gave no result"
		}
		out.Steps = append(out.Steps, failed)
	}
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
// judge.MaxQuoted bytes is cut there, followed by how long it was
// (judge.QuoteData).
func Describe(k core.Kind, data string, withData bool) string {
	if !withData || (data == "" && k != core.OK) {
		return k.String()
	}
	return k.String() + " " + judge.QuoteData(data)
}
