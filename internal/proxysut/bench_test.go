package proxysut

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// benchSession is a session of the example proxy, ended with the
// benchmark.
func benchSession(b *testing.B) *session {
	bin := BuiltExample(b)
	p, err := LoadProfile("")
	if err != nil {
		b.Fatal(err)
	}
	s := &session{argv: []string{bin}, profile: p, dir: b.TempDir(), tally: &door.Counter{}, run: &runState{}}
	b.Cleanup(func() { s.end() })
	return s
}

// BenchmarkFetch is the cost of one net_fetch through the example proxy,
// its start aside: one sandbox, asked a routed fetch again and again.
func BenchmarkFetch(b *testing.B) {
	s := benchSession(b)
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{{Host: "a.test", Path: "/s", Body: "hello"}}})
	sb, err := s.factory(must.Grant(core.GrantSpec{NetHosts: []string{"a.test"}, Budgets: core.Budgets{MaxOps: 1 << 62, MaxWall: 1 << 62, MaxOutputBytes: 1 << 62}}), w)
	if err != nil {
		b.Fatal(err)
	}
	defer sb.(*bridge).Close()
	op := core.Op{Kind: core.OpFetch, Args: []string{"a.test", "/s"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := sb.Run(op); r.Kind != core.OK {
			b.Fatalf("fetch %d: %v", i, r.Kind)
		}
		w.ResetJournal()
	}
}

// BenchmarkStart is the cost of a sandbox for a grant the session has no
// proxy for: the example proxy started, until it accepts a connection,
// and the last one stopped.
func BenchmarkStart(b *testing.B) {
	s := benchSession(b)
	w := refworld.New(scenario.WorldSpec{})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		host := []string{"a.test", "b.test", "c.test"}[i%3]
		sb, err := s.factory(must.Grant(core.GrantSpec{NetHosts: []string{host}}), w)
		if err != nil {
			b.Fatal(err)
		}
		sb.(*bridge).Close()
	}
}
