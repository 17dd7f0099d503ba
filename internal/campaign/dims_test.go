package campaign

import (
	"context"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
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
