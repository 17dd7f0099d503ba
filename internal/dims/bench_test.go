package dims_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// BenchmarkCount is Count's cost per op of generated scenarios, next to
// the oracle's check of the same ops (BenchmarkCheckSameOps): what
// counting dimensions adds to a campaign.
func BenchmarkCount(b *testing.B) {
	scs, gs, ops := sample(b)
	var c dims.Counts
	b.ResetTimer()
	for i := range b.N {
		k := i % len(scs)
		dims.Count(scs[k], gs[k], nil, &c)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*float64(len(scs))/float64(ops), "ns/op-in-scenario")
}

// BenchmarkCountPrepared is BenchmarkCount with each scenario's world
// prepared beforehand, as a campaign passes it (the check prepared it):
// what counting adds to a campaign's check.
func BenchmarkCountPrepared(b *testing.B) {
	scs, gs, ops := sample(b)
	ts := make([]*refworld.Template, len(scs))
	for i, sc := range scs {
		ts[i] = refworld.Prepare(sc.World)
	}
	var c dims.Counts
	b.ResetTimer()
	for i := range b.N {
		k := i % len(scs)
		dims.Count(scs[k], gs[k], ts[k], &c)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*float64(len(scs))/float64(ops), "ns/op-in-scenario")
}

func BenchmarkCheckSameOps(b *testing.B) {
	scs, _, ops := sample(b)
	cases := make([]judge.Case, len(scs))
	for i, sc := range scs {
		cases[i], _ = judge.NewCase(sc)
	}
	var cov oracle.Coverage
	b.ResetTimer()
	for i := range b.N {
		judge.CheckInline(core.ReferenceFactory, cases[i%len(cases)], &cov)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*float64(len(scs))/float64(ops), "ns/op-in-scenario")
}

func sample(b *testing.B) ([]*scenario.Scenario, []core.Grant, int) {
	var scs []*scenario.Scenario
	var gs []core.Grant
	ops := 0
	for i := range 500 {
		sc := generators.Generate(generators.NewSource(1, uint64(i)))
		g, err := core.NewGrant(sc.Grant)
		if err != nil {
			b.Fatal(err)
		}
		scs, gs, ops = append(scs, sc), append(gs, g), ops+len(sc.Steps)
	}
	return scs, gs, ops
}
