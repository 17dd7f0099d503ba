package oracle_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// sliceFeed is a judge.Feed over fixed cases, built by factories[i] when that is
// set. It records which case each Judged call was for, and its findings.
type sliceFeed struct {
	cases     []judge.Case
	factories map[int]core.Factory
	pause     time.Duration // each Next and Judged takes this long
	next      int
	judged    []int
	fs        [][]oracle.Finding
}

func (f *sliceFeed) Next() (judge.Case, core.Factory, bool) {
	time.Sleep(f.pause)
	if f.next == len(f.cases) {
		return judge.Case{}, nil, false
	}
	f.next++
	return f.cases[f.next-1], f.factories[f.next-1], true
}

func (f *sliceFeed) Judged(_ judge.Case, fs []oracle.Finding) {
	time.Sleep(f.pause)
	f.judged = append(f.judged, f.next-1)
	f.fs = append(f.fs, fs)
}

func generatedCases(t *testing.T, n int) []judge.Case {
	t.Helper()
	cs := make([]judge.Case, n)
	for i := range cs {
		c, err := judge.NewCase(generated(i))
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = c
	}
	return cs
}

func inOrder(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	return xs
}

// TestCheckAllIsCheckingEachInline: judge.CheckFeed judges every case of its
// feed, in order, with the findings and counts that checking them one by
// one inline gives — on the reference and on every mutant, whose checks
// fail.
func TestCheckAllIsCheckingEachInline(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	cases := generatedCases(t, n)
	factories := map[string]core.Factory{"reference": core.ReferenceFactory}
	for _, m := range mutants.All() {
		factories["mutant:"+m.Name] = m.Factory
	}
	found := 0
	for name, f := range factories {
		var one, all oracle.Coverage
		want := make([][]oracle.Finding, n)
		for i, c := range cases {
			want[i] = judge.CheckInline(f, c, &one)
			found += len(want[i])
		}
		feed := &sliceFeed{cases: cases}
		judge.CheckFeed(f, judge.Options{}, feed, &all)
		if diff := cmp.Diff(inOrder(n), feed.judged); diff != "" {
			t.Fatalf("%s: the cases judged (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(want, feed.fs); diff != "" {
			t.Errorf("%s: CheckFeed found otherwise than Check (-inline +CheckFeed):\n%s", name, diff)
		}
		if diff := cmp.Diff(one, all); diff != "" {
			t.Errorf("%s: CheckFeed counted otherwise than Check (-inline +CheckFeed):\n%s", name, diff)
		}
	}
	if found == 0 {
		t.Fatal("no mutant failed a check: the comparison proves nothing")
	}
}

// blocker is the reference, except that its first op blocks until the
// sandbox is closed.
type blocker struct {
	core.Sandbox
	closed chan struct{}
	once   *sync.Once
}

func blocking(g core.Grant, w core.World) (core.Sandbox, error) {
	return blocker{core.NewReference(g, w), make(chan struct{}), new(sync.Once)}, nil
}

func (b blocker) Run(op core.Op) core.Result {
	<-b.closed
	return core.Result{Kind: core.NotFound}
}

func (b blocker) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// The tests with a timeout run in a synctest bubble (synctest.Test): its
// clock moves only when every goroutine in it waits, so a check that
// returns takes no time however loaded the machine, and the watchdog's
// timeouts are exact.

// TestCheckAllGoesOnAfterAHang: a case whose sandbox hangs is judged a
// hang, and the cases after it are judged as ever, on a new worker; the
// hung workers end once their sandboxes are closed.
func TestCheckAllGoesOnAfterAHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cases := generatedCases(t, 8)
		hangs := map[int]core.Factory{2: blocking, 5: blocking, 6: blocking}
		before := oracle.BubbleGoroutines()
		var cov oracle.Coverage
		feed := &sliceFeed{cases: cases, factories: hangs}
		judge.CheckFeed(core.ReferenceFactory, judge.Options{Timeout: 80 * time.Millisecond}, feed, &cov)
		if diff := cmp.Diff(inOrder(len(cases)), feed.judged); diff != "" {
			t.Fatalf("the cases judged (-want +got):\n%s", diff)
		}
		for i, fs := range feed.fs {
			switch _, hung := hangs[i]; {
			case hung && (len(fs) != 1 || !fs[0].Hang || fs[0].Step != 1):
				t.Errorf("case %d: %v, want a hang at step 1", i, fs)
			case !hung && len(fs) > 0:
				t.Errorf("case %d, on the reference: %v", i, fs)
			}
		}
		if cov.Scenarios != uint64(len(cases)) || judge.Violations(&cov, oracle.Total) != uint64(len(hangs)) {
			t.Errorf("counted %d scenarios and %d total violations, want %d and %d",
				cov.Scenarios, judge.Violations(&cov, oracle.Total), len(cases), len(hangs))
		}
		synctest.Wait() // every worker that is done has ended
		if after := oracle.BubbleGoroutines(); after > before {
			t.Fatalf("the goroutines went from %d to %d", before, after)
		}
	})
}

// TestASlowFeedIsNotAHang: time spent in the feed (drawing a scenario,
// writing a finding) is not the sandbox's, nor the factory's: Next and
// Judged that each take three timeouts make no hang.
func TestASlowFeedIsNotAHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		feed := &sliceFeed{cases: generatedCases(t, 3), pause: 150 * time.Millisecond}
		judge.CheckFeed(core.ReferenceFactory, judge.Options{Timeout: 50 * time.Millisecond, StartTimeout: 50 * time.Millisecond}, feed, new(oracle.Coverage))
		if diff := cmp.Diff([][]oracle.Finding{nil, nil, nil}, feed.fs); diff != "" {
			t.Fatalf("findings (-want +got):\n%s", diff)
		}
	})
}

// slowCloser is the reference, except that closing it takes d.
type slowCloser struct {
	core.Sandbox
	d time.Duration
}

func (s slowCloser) Close() error {
	time.Sleep(s.d)
	return nil
}

// TestChecksSlowInOnePhaseAreNoHang: every check ends at the same progress
// (closing its sandboxes), so checks that each spend half a timeout
// there look, by progress alone, like one check stuck for many; none is
// a hang, since each moves on within its timeout.
func TestChecksSlowInOnePhaseAreNoHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 100 * time.Millisecond
		slow := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return slowCloser{core.NewReference(g, w), timeout / 4}, nil // two a check: half a timeout
		}
		feed := &sliceFeed{cases: generatedCases(t, 8)}
		judge.CheckFeed(slow, judge.Options{Timeout: timeout}, feed, new(oracle.Coverage))
		for i, fs := range feed.fs {
			if len(fs) > 0 {
				t.Errorf("case %d: %v", i, fs)
			}
		}
	})
}
