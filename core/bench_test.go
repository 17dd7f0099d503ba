package core_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/seedtrace"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

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
	g := must.Grant(seedtrace.Grant())
	w := refworld.New(seedtrace.World(links...)) // journaling, as under the harness
	s := core.NewReference(g, w)
	ops := seedtrace.Ops()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(ops)
		if r := s.Run(ops[k]); r.Kind == core.Invalid {
			b.Fatal("no verdict")
		}
		if k == 0 && w.JournalLen() > 4096 {
			w.ResetJournal()
		}
	}
}
