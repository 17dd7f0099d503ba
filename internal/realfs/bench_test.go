//go:build unix

package realfs

import (
	"fmt"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// BenchmarkObserve is what judging one op costs the harness on a small
// world: an Observe and a Changes against the observation before, on a
// world of 20 files (a third of them forbidden, with canaries) in 4
// directories and 3 links. Reported as judged ops per second.
func BenchmarkObserve(b *testing.B) {
	var ws scenario.WorldSpec
	for i := range 20 {
		dir := []string{"/work", "/work/out", "/etc", "/home/u"}[i%4]
		ws.Files = append(ws.Files, scenario.File{Path: fmt.Sprintf("%s/f%02d.txt", dir, i), Data: fmt.Sprintf("content of file %d", i)})
	}
	ws.Links = []scenario.Link{{Path: "/work/ln", Target: "/etc/f02.txt"}, {Path: "/work/up", Target: "../etc"}, {Path: "/work/loop", Target: "loop"}}
	g := core.GrantSpec{FSRead: []string{"/work/", "/home"}, FSWrite: []string{"/work/out/"}}
	tr, err := Materialize(b.TempDir()+"/base", ws, g, nil)
	if err != nil {
		b.Fatal(err)
	}
	before, err := tr.Observe()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		after, err := tr.Observe()
		if err != nil {
			b.Fatal(err)
		}
		if c := tr.Changes(before, after); len(c) != 0 {
			b.Fatal(c)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
