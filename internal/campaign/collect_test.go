package campaign

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestCollectorKeepsTheLowestFew: whatever order checks finish in, the
// collector keeps at most MaxPerInvariant raw findings per invariant, the
// ones of the lowest checks, at most MaxPerClass of them for ops of one
// attack class (the cause of an op that is no fetch), and hands each to the sink only once every check before
// it has finished.
func TestCollectorKeepsTheLowestFew(t *testing.T) {
	var got []int
	k := newCollector(false, 0, func(r raw) {
		got = append(got, r.check)
	})
	// Checks 0..99 finish in a scrambled order; every odd one finds a
	// confinement violation, at an op of the traversal class below check
	// 60, of the rebinding class from it on, and of the symlink-loop class
	// from 90 on; every third one an output-bounded one, always at a
	// traversal.
	order := make([]int, 100)
	for i := range order {
		order[i] = (i*37 + 11) % 100
	}
	traversal := &scenario.Scenario{Steps: []scenario.Step{{Class: attack.Traversal}}}
	rebinding := &scenario.Scenario{Steps: []scenario.Step{{Class: attack.Rebinding}, {Class: attack.Traversal}}}
	loop := &scenario.Scenario{Steps: []scenario.Step{{Class: attack.SymlinkLoop}, {Class: attack.Traversal}}}
	for _, i := range order {
		var fs []oracle.Finding
		sc := traversal
		switch {
		case i >= 90:
			sc = loop
		case i >= 60:
			sc = rebinding
		}
		if i%2 == 1 {
			fs = append(fs, oracle.Finding{Invariant: oracle.Confinement, Step: 1})
		}
		if i%3 == 0 {
			fs = append(fs, oracle.Finding{Invariant: oracle.OutputBounded, Step: len(sc.Steps)})
		}
		if len(fs) > 0 {
			k.offer(i, sc, fs, stepMarks{})
		}
		for id := range k.pending {
			if n := len(k.pending[id]) + k.accepted[id]; n > MaxPerInvariant {
				t.Fatalf("after check %d: %d findings of %s kept", i, n, oracle.ID(id))
			}
		}
		k.finish(i)
	}
	k.flush()
	if diff := cmp.Diff([]int{0, 1, 3, 3, 61, 63}, got); diff != "" {
		t.Fatalf("checks handed to the sink mismatch (-want +got):\n%s", diff)
	}
	_, traversalFull := k.causeFull.Load(fullKey(oracle.OutputBounded, attack.Traversal.String()))
	if !k.full[oracle.Confinement].Load() || k.full[oracle.OutputBounded].Load() || !traversalFull || k.full[oracle.NoInternalEgress].Load() {
		t.Fatal("saturation flags wrong")
	}
	// Every cause is listed, by its first check, kept or not: the
	// symlink loops came after confinement's slots were taken.
	want := []CauseSeen{
		{Cause: "traversal", Class: true, Violations: 30 + 34, FirstCheck: 0, Kept: true, Invariants: []oracle.ID{oracle.Confinement, oracle.OutputBounded}},
		{Cause: "rebinding", Class: true, Violations: 15, FirstCheck: 61, Kept: true, Invariants: []oracle.ID{oracle.Confinement}},
		{Cause: "symlink-loop", Class: true, Violations: 5, FirstCheck: 91, Invariants: []oracle.ID{oracle.Confinement}},
	}
	if diff := cmp.Diff(want, k.seenCauses()); diff != "" {
		t.Errorf("causes seen mismatch (-want +got):\n%s", diff)
	}
}

// TestCollectorStopAtFirst: under StopAtFirst only the first finding of
// the lowest check with any is kept: its first invariant.
func TestCollectorStopAtFirst(t *testing.T) {
	var got []oracle.ID
	k := newCollector(true, 0, func(r raw) { got = append(got, r.f.Invariant) })
	sc := new(scenario.Scenario)
	k.offer(7, sc, []oracle.Finding{{Invariant: oracle.Total}}, stepMarks{})
	k.offer(4, sc, []oracle.Finding{{Invariant: oracle.Confinement}, {Invariant: oracle.VerdictMatchesModel}}, stepMarks{})
	for _, i := range []int{7, 4, 0, 1, 2, 3, 5, 6} {
		k.finish(i)
	}
	k.flush()
	if diff := cmp.Diff([]oracle.ID{oracle.Confinement}, got); diff != "" {
		t.Fatalf("kept mismatch (-want +got):\n%s", diff)
	}
}

// TestMemoryStaysFlat: a campaign against a mutant that fails on about
// half its checks keeps a small, flat live heap however many checks it
// makes (the raw findings used to be kept whole: ~8.5 KB a check).
func TestMemoryStaysFlat(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	peak := func(checks int) (uint64, *Result) {
		var max atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // sample the live heap: after a collection, what is still reachable
			defer wg.Done()
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				runtime.GC()
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > max.Load() {
					max.Store(ms.HeapAlloc)
				}
			}
		}()
		res, err := Run(context.Background(), Config{Seed: 1, Checks: checks, Workers: 2, Target: sut.Static("mutant:raw-prefix", m.Factory)})
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		return max.Load(), res
	}
	small, _ := peak(2000)
	big, res := peak(20000)
	t.Logf("live heap peak: %d KB at 2,000 checks, %d KB at 20,000 (%d raw findings, %d kept)", small>>10, big>>10, res.Raw, len(res.Findings))
	if res.Raw < 5000 {
		t.Fatalf("only %d raw findings: the mutant no longer fails often enough for this test", res.Raw)
	}
	// The bound is far below what keeping the raw findings whole costs at
	// this count, and far above the samples' noise on a busy machine,
	// where one peak sits well above another at the same count.
	if big > small+32<<20 || big > 64<<20 {
		t.Fatalf("the live heap grew from %d KB to %d KB with ten times the checks", small>>10, big>>10)
	}
}

// TestCollectorKeepsACopy: a worker draws its next scenario into the memory
// of the last one (generators.Generator), so the collector must keep a
// copy of a scenario it keeps, not the worker's: what the sink gets is the
// scenario as offered, whatever the worker wrote over it since.
func TestCollectorKeepsACopy(t *testing.T) {
	var got []*scenario.Scenario
	k := newCollector(false, 0, func(r raw) { got = append(got, r.sc) })
	g := generators.NewGenerator()
	sc := g.Generate(generators.NewSource(1, 0))
	want := string(sc.Format())
	k.offer(0, sc, []oracle.Finding{{Invariant: oracle.Confinement}, {Invariant: oracle.Total}}, stepMarks{})
	for i := range uint64(20) { // the worker's next scenarios, in the same memory
		g.Generate(generators.NewSource(1, 1+i))
	}
	k.finish(0)
	if len(got) != 2 || got[0] != got[1] {
		t.Fatalf("the sink got %d scenarios for one check's two findings, want one copy twice", len(got))
	}
	if s := string(got[0].Format()); s != want {
		t.Errorf("the kept scenario changed after it was offered:\n%s\nwant\n%s", s, want)
	}
}

// TestFinishedSet: in whatever order checks finish — shuffled, one held
// back while thousands finish after it, in runs that cross word
// boundaries — the watermark is the lowest check not yet finished, and
// the bits kept cover only the checks from the watermark's word on.
func TestFinishedSet(t *testing.T) {
	orders := map[string][]int{}
	const n = 5000
	shuffled := make([]int, n)
	for i := range shuffled {
		shuffled[i] = (i*2654435761 + 17) % n // a permutation: n and the multiplier are coprime
	}
	orders["shuffled"] = shuffled
	held := []int{}
	for i := 1; i < n; i++ {
		held = append(held, i)
	}
	orders["first held back"] = append(held, 0)
	var windows []int // each window of 200 finishes backwards
	for w := 0; w < n; w += 200 {
		for i := min(w+200, n) - 1; i >= w; i-- {
			windows = append(windows, i)
		}
	}
	orders["windows backwards"] = windows
	var lastBits, rest []int // every check but each word's last, then those
	for i := range n {
		if i%64 == 63 {
			lastBits = append(lastBits, i)
		} else {
			rest = append(rest, i)
		}
	}
	orders["last bits late"] = append(rest, lastBits...)
	for name, order := range orders {
		seen := make([]bool, n)
		var s finishedSet
		want := 0
		for _, i := range order {
			seen[i] = true
			for want < n && seen[want] {
				want++
			}
			if got := s.add(i); got != want {
				t.Fatalf("%s: after check %d the watermark is %d, want %d", name, i, got, want)
			}
			if s.base > s.watermark || s.base%64 != 0 || s.watermark-s.base >= 64 {
				t.Fatalf("%s: after check %d base %d, watermark %d: words below the watermark's are kept", name, i, s.base, s.watermark)
			}
		}
		if s.watermark != n || len(s.words) > 1 {
			t.Errorf("%s: at the end watermark %d, %d words kept; want %d and at most one", name, s.watermark, len(s.words), n)
		}
	}
}
