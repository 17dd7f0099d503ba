package generators

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// BenchmarkGenerate reports the cost of generation per generated op, with
// the seeded source a campaign uses.
func BenchmarkGenerate(b *testing.B) {
	src := NewSource(1, 0)
	ops := 0
	b.ReportAllocs()
	for b.Loop() {
		ops += len(Generate(src).Steps)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/genop")
	b.ReportMetric(float64(ops)/float64(b.N), "ops/scenario")
}

// BenchmarkGenerateFresh is BenchmarkGenerate the way a campaign calls it:
// a fresh source, NewSource(seed, i), for each scenario.
func BenchmarkGenerateFresh(b *testing.B) {
	ops, i := 0, uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		ops += len(Generate(NewSource(1, i)).Steps)
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/genop")
}

// BenchmarkGenerateAndCheck is one campaign worker: generate, then check
// every invariant on the reference; it reports the cost per checked op.
func BenchmarkGenerateAndCheck(b *testing.B) {
	var cov oracle.Coverage
	i := uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		c, err := judge.NewCase(Generate(NewSource(1, i)))
		i++
		if err != nil {
			b.Fatal(err)
		}
		judge.CheckInline(core.ReferenceFactory, c, &cov)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cov.Ops), "ns/checkedop")
}

// BenchmarkGenerator is BenchmarkGenerateFresh through a Generator, as a
// campaign worker draws: each scenario in the memory of the one before.
func BenchmarkGenerator(b *testing.B) {
	g := NewGenerator()
	ops, i := 0, uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		ops += len(g.Generate(NewSource(1, i)).Steps)
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/genop")
}

// BenchmarkCheckGenerated is BenchmarkGenerateAndCheck without the
// generation: the check alone, cycling over 2,048 scenarios drawn before
// the timer starts, each in memory of its own.
func BenchmarkCheckGenerated(b *testing.B) {
	cases := make([]judge.Case, 2048)
	for i := range cases {
		c, err := judge.NewCase(Generate(NewSource(1, uint64(i))))
		if err != nil {
			b.Fatal(err)
		}
		cases[i] = c
	}
	var cov oracle.Coverage
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		judge.CheckInline(core.ReferenceFactory, cases[i%len(cases)], &cov)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cov.Ops), "ns/checkedop")
}
