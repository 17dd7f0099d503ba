package campaign

import (
	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/minimize"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// Summarize builds the summary of res (SPEC §11) against the sandbox
// named sut.
func Summarize(res *Result, sut string) reports.Summary {
	s := reports.Summary{
		Seed: res.Seed, SUT: sut, Checks: res.Checks, Drawn: drawnIfSkipped(res), LeftOut: res.LeftOut, Scenarios: res.Coverage.Scenarios, Ops: res.Coverage.Ops,
		Workers: res.Workers, ElapsedSeconds: res.Elapsed.Seconds(), CheckedSeconds: res.Checked.Seconds(), OpsPerSecond: res.OpsPerSecond(),
		Interrupted: res.Interrupted, RawFindings: res.Raw, ViolationCauses: int64(len(res.CausesSeen)), Findings: []reports.Finding{}, UnconfirmedHangs: res.UnconfirmedHangs, GivenUpChecks: res.GivenUp,
		Invariants: invariantChecks(&res.Coverage), Classes: classRows(&res.Coverage), Dimensions: dimensionPoints(res),
		Stricter: res.Tally.Stricter, StricterExamples: res.Tally.StricterExamples, StricterSaid: saidOnly(res.Tally.StricterSaid), StricterFiles: res.StricterFiles, SkippedStdoutLines: res.Tally.SkippedLines,
		WholeReads: res.Tally.Whole, WholeExample: res.Tally.WholeExample, NumberedReads: res.Tally.Numbered, KeptFetches: res.Tally.Kept, LateRequests: res.Tally.Late, LateExample: res.Tally.LateExample, LineMovedFetches: res.Tally.LineMoved, StaleOps: res.Tally.Stale, CachedFetches: res.Tally.Cached, LandedOps: res.Tally.Landed,
		RefusedOps: res.Tally.Refused, RefusedLetThrough: res.Tally.LetThrough,
	}
	for k, n := range res.Tally.Kinds {
		if s.ByKind == nil {
			s.ByKind = map[string]reports.KindCounts{}
		}
		s.ByKind[k] = reports.KindCounts{Stricter: n.Stricter, AllowedPassed: n.Passed, RefusedOps: n.Refused, RefusedLetThrough: n.LetThrough}
	}
	if res.Tally.CountsPassed {
		s.AllowedPassed = new(res.Tally.Passed)
	}
	s.DistinctScenarios = distinctScenarios(res.Findings)
	for _, c := range res.CausesSeen {
		cause := reports.Cause{Cause: c.Cause, Class: c.Class, Violations: c.Violations, FirstCheck: c.FirstCheck, Written: c.Kept}
		for _, id := range c.Invariants {
			cause.Invariants = append(cause.Invariants, id.String())
		}
		s.Causes = append(s.Causes, cause)
	}
	for _, f := range res.Findings {
		s.Findings = append(s.Findings, reports.Finding{Invariant: f.Invariant.String(), Check: f.Check, Step: f.Step,
			Class: f.Class.String(), Cause: f.Cause, Detail: fileDetail(f.Finding), File: f.Path, OriginalOps: len(f.Original.Steps), MinimizedOps: len(f.Minimized.Steps),
			Unminimized: f.Unminimized, Flaky: f.Flaky, Stateful: f.Stateful, Unconfirmed: f.Unconfirmed, Unreproduced: f.Unreproduced})
		switch {
		case f.Unconfirmed:
			s.UnconfirmedFindings++
		case f.Flaky || f.Stateful:
			s.FlakyFindings++
			if f.Invariant == oracle.Confinement || f.Invariant == oracle.NoInternalEgress {
				// The sandbox reached outside its grant, or the inside,
				// once: that it did not again is no pass.
				s.FlakyEscapes++
			}
		}
	}
	return s
}

// fileDetail is the oracle's words on the scenario a finding's file
// holds: the minimized one, whose failure may be another than the one
// the campaign found first (minimizing keeps the invariant, not its
// cause); the original's when it was not minimized.
func fileDetail(f *finding.Finding) string {
	if f.MinDetail != "" {
		return f.MinDetail
	}
	return f.Detail
}

// NewReport builds the coverage report of res against the sandbox named
// sut: its summary and the violations of each invariant per attack class.
func NewReport(res *Result, sut string) *reports.Report {
	return reports.New(Summarize(res, sut), violationsByClass(&res.Coverage))
}

// dimensionPoints lists every point of the SPEC dimension table with its
// hits, or nil when the campaign did not count them.
func dimensionPoints(res *Result) []reports.DimensionPoint {
	if res.Dimensions == nil {
		return nil
	}
	var out []reports.DimensionPoint
	for i, p := range dims.Catalog() {
		d := reports.DimensionPoint{Dim: p.Dim, Group: p.Group, Name: p.Name, Unreachable: p.Unreachable, Hits: res.Dimensions.Hits(i)}
		if res.DimensionsDrawn != nil {
			n := res.DimensionsDrawn.Hits(i)
			d.Drawn = &n
		}
		out = append(out, d)
	}
	return out
}

// invariantChecks lists every invariant of the catalogue, in its order.
// (encoding/json writes map keys sorted, so output order is fixed.)
func invariantChecks(cov *oracle.Coverage) []reports.InvariantChecks {
	var rows []reports.InvariantChecks
	for _, inv := range oracle.Invariants() {
		row := reports.InvariantChecks{ID: inv.Name, Checked: judge.Checked(cov, inv.ID), Violations: judge.Violations(cov, inv.ID), ByClass: map[string]uint64{}}
		for c := attack.Class(0); c < attack.NumClasses; c++ {
			if n := cov.Classes[c].Checked[inv.ID]; n > 0 {
				row.ByClass[c.String()] = n
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// violationsByClass maps each invariant of the catalogue to its
// violations per attack class.
func violationsByClass(cov *oracle.Coverage) map[string]map[string]uint64 {
	out := map[string]map[string]uint64{}
	for _, inv := range oracle.Invariants() {
		v := map[string]uint64{}
		for c := attack.Class(0); c < attack.NumClasses; c++ {
			if n := cov.Classes[c].Violations[inv.ID]; n > 0 {
				v[c.String()] = n
			}
		}
		out[inv.Name] = v
	}
	return out
}

// classRows lists every attack class of SPEC §9, in its order, then
// unlabelled ops if there were any.
func classRows(cov *oracle.Coverage) []reports.ClassRow {
	var rows []reports.ClassRow
	classes := append(attack.All(), attack.Unlabelled)
	for _, c := range classes {
		if c == attack.Unlabelled && judge.ClassOps(cov, c) == 0 {
			continue
		}
		row := reports.ClassRow{ID: c.String(), Ops: judge.ClassOps(cov, c), Kinds: map[string]uint64{}}
		for k := core.OK; k < core.NumKinds; k++ {
			if n := cov.Classes[c].Kinds[k]; n > 0 {
				row.Kinds[k.String()] = n
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// drawnIfSkipped is res.Drawn when an adapter skipped scenarios (then the
// campaign is reproduced with that many checks), else 0.
func drawnIfSkipped(res *Result) int {
	if res.Drawn > res.Checks {
		return res.Drawn
	}
	return 0
}

// distinctScenarios counts the findings' distinct minimized scenarios,
// their headers (which name the invariant) left out: one op that reads a
// file outside the grant is a confinement finding and a
// verdict-matches-model one, two files of one scenario.
func distinctScenarios(fs []Finding) int {
	seen := map[string]bool{}
	for _, f := range fs {
		seen[string(minimize.Clean(f.Minimized).Format())] = true
	}
	return len(seen)
}

// saidOnly is said without the reasons whose example was refused in no
// words.
func saidOnly(said map[string]string) map[string]string {
	var out map[string]string
	for r, w := range said {
		if w != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[r] = w
		}
	}
	return out
}
