package fuzzcheck

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzdecode"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// BenchmarkCheckScenarioSeeds is one FuzzScenario exec on each committed
// seed of fuzz/testdata/fuzz/FuzzScenario in turn: the inputs a fuzzing
// run starts from.
func BenchmarkCheckScenarioSeeds(b *testing.B) {
	in := seedInputs(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := CheckScenario(in[i%len(in)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOracleSeeds is the oracle's part of BenchmarkCheckScenarioSeeds:
// the seeds decoded once, then judged in turn.
func BenchmarkOracleSeeds(b *testing.B) {
	_, f, err := SUT()
	if err != nil {
		b.Fatal(err)
	}
	var cases []judge.Case
	for _, data := range seedInputs(b) {
		in := fuzzdecode.Read(data)
		cases = append(cases, in.Case())
	}
	cov := new(oracle.Coverage)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if fs := judge.CheckInline(f, cases[i%len(cases)], cov); len(fs) > 0 {
			b.Fatal(fs)
		}
	}
}
