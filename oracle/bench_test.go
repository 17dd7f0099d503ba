package oracle

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/seedtrace"
)

// BenchmarkCheckedSeedTrace is BenchmarkSeedTrace with the oracle watching:
// every per-step check and the model after every op.
func BenchmarkCheckedSeedTrace(b *testing.B) {
	g, ops := must.Grant(seedtrace.Grant()), seedtrace.Ops()
	var cov Coverage
	r := watchWorld(core.ReferenceFactory, g, seedtrace.World(), &cov)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(ops)
		r.Step(ops[k], attack.Benign)
		if k == 0 && r.world.JournalLen() > 4096 {
			r.world.ResetJournal()
		}
	}
	b.StopTimer()
	if len(r.Findings()) > 0 {
		b.Fatal(r.Findings())
	}
}

// BenchmarkModelSeedTrace is the model alone on BenchmarkCheckedSeedTrace's
// ops: what predicting SPEC §5 costs an op, without the sandbox or the
// checks.
func BenchmarkModelSeedTrace(b *testing.B) {
	g, ops := must.Grant(seedtrace.Grant()), seedtrace.Ops()
	m := newModel(g.Spec(), newModelWorld(newModelBase(seedtrace.World())))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if res, _ := m.predict(ops[i%len(ops)]); res.Kind == core.Invalid {
			b.Fatal("no verdict")
		}
	}
}

// BenchmarkCheckMemory is why a check works in memory an earlier one
// handed back: the state of the run and its worlds (pooled) against a new
// one for every check (fresh), on generated scenarios checked inline
// against the reference.
func BenchmarkCheckMemory(b *testing.B) {
	var cases []checkCase
	for i := range 512 {
		c, err := newCase(generators.Generate(generators.NewSource(1, uint64(i))))
		if err != nil {
			b.Fatal(err)
		}
		cases = append(cases, c)
	}
	for _, bc := range []struct {
		name  string
		check func(c checkCase, cov *Coverage)
	}{
		{"state=pooled", func(c checkCase, cov *Coverage) { checkNow(core.ReferenceFactory, c, cov, nil, nil) }},
		{"state=fresh", func(c checkCase, cov *Coverage) { checkIn(new(checkState), core.ReferenceFactory, c, cov, nil, nil) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var cov Coverage
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				bc.check(cases[i%len(cases)], &cov)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cov.Ops), "ns/checkedop")
		})
	}
}
