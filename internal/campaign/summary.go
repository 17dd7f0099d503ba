package campaign

import (
	"fmt"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// Summary is the JSON form of a campaign (SPEC §11): counts, throughput,
// findings, and the coverage tables. Everything but ElapsedSeconds and
// OpsPerSecond is a function of the seed, the checks and the sandbox.
type Summary struct {
	Seed           uint64           `json:"seed"`
	SUT            string           `json:"sut"`
	Checks         int              `json:"checks"`
	Drawn          int              `json:"drawn,omitempty"` // scenarios drawn, when an adapter skipped some
	Scenarios      uint64           `json:"scenarios"`
	Ops            uint64           `json:"ops"`
	Workers        int              `json:"workers"`
	ElapsedSeconds float64          `json:"elapsed_seconds"`
	OpsPerSecond   float64          `json:"ops_per_second"`
	Interrupted    bool             `json:"interrupted"`
	RawFindings    int64            `json:"raw_findings"` // violations the oracle reported, before deduplication
	Findings       []FindingSummary `json:"findings"`
	// FlakyFindings counts the findings marked flaky: they did not fail
	// again when judged again, and do not make the exit status 1.
	FlakyFindings int `json:"flaky_findings,omitempty"`
	// UnconfirmedHangs counts the hangs a fresh session of a real sandbox
	// answered in time when judged again: not findings (Result).
	UnconfirmedHangs int            `json:"unconfirmed_hangs,omitempty"`
	Invariants       []InvariantRow `json:"invariants"`
	Classes          []ClassRow     `json:"classes"`
	// Dimensions is every point of the SPEC dimension table (package
	// dims) with its hits, when the campaign counted them.
	Dimensions []DimensionPoint `json:"dimensions,omitempty"`
}

// DimensionPoint is one point of the SPEC dimension table and how often
// the campaign's scenarios hit it.
type DimensionPoint struct {
	dims.Point
	Hits uint64 `json:"hits"`
	// Drawn, for a sandbox whose adapter narrows scenarios (a real one),
	// is how often the scenarios as generated hit the point; nil for the
	// others, whose checked scenarios are the generated ones.
	Drawn *uint64 `json:"drawn,omitempty"`
}

// FindingSummary is one finding in a Summary.
type FindingSummary struct {
	Invariant    string `json:"invariant"`
	Check        int    `json:"check"`
	Step         int    `json:"step"`
	Class        string `json:"class"`
	Detail       string `json:"detail"`
	File         string `json:"file,omitempty"`
	OriginalOps  int    `json:"original_ops"`
	MinimizedOps int    `json:"minimized_ops"`
	// Unminimized is set on a finding written as it was found: the
	// campaign stopped before its minimization (see Finding).
	Unminimized bool `json:"unminimized,omitempty"`
	// Flaky is set on a finding that did not fail again in any of the
	// judgements after the one that found it (finding.Finding.Flaky):
	// Detail is the oracle's words on that first run.
	Flaky bool `json:"flaky,omitempty"`
}

// InvariantRow is one invariant's coverage: checks and violations, per
// attack class.
type InvariantRow struct {
	ID         string            `json:"id"`
	Checked    uint64            `json:"checked"`
	Violations uint64            `json:"violations"`
	ByClass    map[string]uint64 `json:"by_class"`
}

// ClassRow is one attack class: its ops and the result kinds they got.
type ClassRow struct {
	ID    string            `json:"id"`
	Ops   uint64            `json:"ops"`
	Kinds map[string]uint64 `json:"kinds"`
}

// Failed reports whether the campaign found a finding that counts for
// the exit status: one that is not flaky.
func (s *Summary) Failed() bool { return len(s.Findings) > s.FlakyFindings }

// Summarize builds the Summary of res.
func Summarize(res *Result, sut string) Summary {
	s := Summary{
		Seed: res.Seed, SUT: sut, Checks: res.Checks, Drawn: drawnIfSkipped(res), Scenarios: res.Coverage.Scenarios, Ops: res.Coverage.Ops,
		Workers: res.Workers, ElapsedSeconds: res.Elapsed.Seconds(), OpsPerSecond: res.OpsPerSecond(),
		Interrupted: res.Interrupted, RawFindings: res.Raw, Findings: []FindingSummary{}, UnconfirmedHangs: res.UnconfirmedHangs,
		Invariants: InvariantRows(&res.Coverage), Classes: ClassRows(&res.Coverage),
	}
	if res.Dimensions != nil {
		for i, p := range dims.Catalog() {
			d := DimensionPoint{Point: p, Hits: res.Dimensions.Hits(i)}
			if res.DimensionsDrawn != nil {
				n := res.DimensionsDrawn.Hits(i)
				d.Drawn = &n
			}
			s.Dimensions = append(s.Dimensions, d)
		}
	}
	for _, f := range res.Findings {
		s.Findings = append(s.Findings, FindingSummary{Invariant: f.Invariant.String(), Check: f.Check, Step: f.Step,
			Class: f.Class.String(), Detail: f.Detail, File: f.Path, OriginalOps: len(f.Original.Steps), MinimizedOps: len(f.Minimized.Steps),
			Unminimized: f.Unminimized, Flaky: f.Flaky})
		if f.Flaky {
			s.FlakyFindings++
		}
	}
	return s
}

// InvariantRows lists every invariant of the catalogue, in its order.
// (encoding/json writes map keys sorted, so output order is fixed.)
func InvariantRows(cov *oracle.Coverage) []InvariantRow {
	var rows []InvariantRow
	for _, inv := range oracle.Invariants() {
		row := InvariantRow{ID: inv.Name, Checked: cov.CheckedTotal(inv.ID), Violations: cov.ViolationsTotal(inv.ID), ByClass: map[string]uint64{}}
		for c := attack.Class(0); c < attack.NumClasses; c++ {
			if n := cov.Classes[c].Checked[inv.ID]; n > 0 {
				row.ByClass[c.String()] = n
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// ClassRows lists every attack class of SPEC §9, in its order, then
// unlabelled ops if there were any.
func ClassRows(cov *oracle.Coverage) []ClassRow {
	var rows []ClassRow
	classes := append(attack.All(), attack.Unlabelled)
	for _, c := range classes {
		if c == attack.Unlabelled && cov.ClassOps(c) == 0 {
			continue
		}
		row := ClassRow{ID: c.String(), Ops: cov.ClassOps(c), Kinds: map[string]uint64{}}
		for k := core.OK; k < core.NumKinds; k++ {
			if n := cov.Classes[c].Kinds[k]; n > 0 {
				row.Kinds[k.String()] = n
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// Expressible is the summary line's clause saying what fraction of the
// drawn scenarios the sandbox's adapter could express ("; N of M drawn
// scenarios expressible (P%)"), or "" when it expressed them all.
func (s *Summary) Expressible() string {
	if s.Drawn <= s.Checks {
		return ""
	}
	return fmt.Sprintf("; %d of %d drawn scenarios expressible (%.0f%%)", s.Checks, s.Drawn, 100*float64(s.Checks)/float64(s.Drawn))
}

// drawnIfSkipped is res.Drawn when an adapter skipped scenarios (then the
// campaign is reproduced with that many checks), else 0.
func drawnIfSkipped(res *Result) int {
	if res.Drawn > res.Checks {
		return res.Drawn
	}
	return 0
}
