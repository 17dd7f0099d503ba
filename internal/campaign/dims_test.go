package campaign

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestDimensionsBeforeAndAfterTheAdapter: a campaign counts the points of
// the scenarios it checked and, for a sandbox whose adapter narrows them,
// of the scenarios as generated too; an adapter that drops every
// net_fetch leaves the host shapes to the second count only.
func TestDimensionsBeforeAndAfterTheAdapter(t *testing.T) {
	noFetch := sut.Target{
		Name: "no-fetch",
		Start: func() (core.Factory, func() error, error) {
			return core.ReferenceFactory, func() error { return nil }, nil
		},
		Adapt: func(sc *scenario.Scenario) *scenario.Scenario {
			out := *sc
			out.Steps = nil
			for _, st := range sc.Steps {
				if st.Op.Kind != core.OpFetch {
					out.Steps = append(out.Steps, st)
				}
			}
			return &out
		},
	}
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 300, Workers: 2, Target: noFetch, Dimensions: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dimensions == nil || res.DimensionsDrawn == nil {
		t.Fatalf("counts missing: checked %v, drawn %v", res.Dimensions, res.DimensionsDrawn)
	}
	var checked, drawn uint64
	for i, p := range dims.Catalog() {
		if p.Dim == dims.HostShape {
			checked += res.Dimensions.Hits(i)
			drawn += res.DimensionsDrawn.Hits(i)
		}
	}
	if checked != 0 || drawn == 0 {
		t.Errorf("host shapes: %d hits checked (want 0), %d drawn (want some)", checked, drawn)
	}
	s := Summarize(res, noFetch.Name)
	if len(s.Dimensions) != len(dims.Catalog()) || s.Dimensions[0].Drawn == nil {
		t.Errorf("the summary's points lack the drawn counts: %d points", len(s.Dimensions))
	}

	res, err = Run(context.Background(), Config{Seed: 1, Checks: 50, Workers: 1, Dimensions: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dimensions == nil || res.DimensionsDrawn != nil || Summarize(res, "reference").Dimensions[0].Drawn != nil {
		t.Error("a campaign with no adapter counts the checked scenarios only")
	}
}

// TestDimensionsCountedInChecksSurviveHangs: with the reference under test,
// a campaign counts the points from each check's own run; a check given up
// on (an op past a timeout this short is a hang) may go on counting from
// its abandoned goroutine, so its counts are dropped and the scenario is
// counted on a run of its own. Whatever hangs, the totals are exactly
// dims.Count's over the same scenarios, and (under -race) nothing an
// abandoned check does races with the checks after it.
func TestDimensionsCountedInChecksSurviveHangs(t *testing.T) {
	const checks = 500
	var want dims.Counts
	for i := range checks {
		sc := generators.Generate(generators.NewSource(3, uint64(i)))
		g, err := core.NewGrant(sc.Grant)
		if err != nil {
			t.Fatal(err)
		}
		dims.Count(sc, g, nil, &want)
	}
	for _, timeout := range []time.Duration{0, 2 * time.Microsecond} {
		res, err := Run(context.Background(), Config{Seed: 3, Checks: checks, Workers: 2, Dimensions: true, Timeout: timeout, Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("timeout %v: %d findings, %d total violations", timeout, len(res.Findings), judge.Violations(&res.Coverage, oracle.Total))
		if got := res.Dimensions.Slice(); !slices.Equal(got, want.Slice()) {
			for i, p := range dims.Catalog() {
				if got[i] != want.Hits(i) {
					t.Fatalf("timeout %v: %s: the campaign counts %d hits, dims.Count %d", timeout, p, got[i], want.Hits(i))
				}
			}
		}
	}
}

// TestLeftOutByWhy: the scenarios an adapter leaves out are counted by
// the reason its Target gives, one reason whatever path or number it
// names, on every worker, and the summary carries the counts.
func TestLeftOutByWhy(t *testing.T) {
	whyNot := func(sc *scenario.Scenario) string {
		if len(sc.Steps)%2 == 0 {
			return fmt.Sprintf("an even number of ops, %d, the first at %q", len(sc.Steps), fmt.Sprintf("/work/%d", len(sc.Steps)))
		}
		return "an odd number of ops"
	}
	evenOut := sut.Target{
		Name: "odd-only",
		Start: func() (core.Factory, func() error, error) {
			return core.ReferenceFactory, func() error { return nil }, nil
		},
		Adapt: func(sc *scenario.Scenario) *scenario.Scenario {
			if len(sc.Steps)%2 == 0 {
				return nil
			}
			return sc
		},
		Why: whyNot,
	}
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 200, Workers: 2, Target: evenOut})
	if err != nil {
		t.Fatal(err)
	}
	left := res.Drawn - res.Checks
	if want := map[string]int{`an even number of ops, N, the first at "…"`: left}; left == 0 || !maps.Equal(res.LeftOut, want) {
		t.Errorf("left out %v, want %v", res.LeftOut, want)
	}
	if s := Summarize(res, evenOut.Name); !maps.Equal(s.LeftOut, res.LeftOut) {
		t.Errorf("the summary's counts %v, want %v", s.LeftOut, res.LeftOut)
	}
}
