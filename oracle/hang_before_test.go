package oracle

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// panicsThenCloseHangs panics at its second op and never returns from
// Close until released: a lock the panic left held.
type panicsThenCloseHangs struct {
	wrapped
	ran     *int
	release chan struct{}
}

func (s panicsThenCloseHangs) Run(op core.Op) core.Result {
	if *s.ran++; *s.ran == 2 {
		panic("tool runner crashed")
	}
	return s.Reference.Run(op)
}

func (s panicsThenCloseHangs) Close() error { <-s.release; return nil }

// TestHangKeepsAnEarlierCrash: a crash at an op, and then a Close that
// hangs on what the crash left, is the crash's total finding: the hang,
// which a campaign would judge again and might drop as a slow machine's,
// does not take its place.
func TestHangKeepsAnEarlierCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		cov := new(Coverage)
		got := check(infallible(func(g core.Grant, w core.World) core.Sandbox {
			return panicsThenCloseHangs{wrap(g, w), new(int), release}
		}), hangCase(), cov, Options{Timeout: 100 * time.Millisecond})
		if len(got) != 1 || got[0].Invariant != Total || got[0].Step != 2 || got[0].Hang {
			t.Errorf("findings %+v; want the crash at step 2 alone, no hang", got)
		}
		var n uint64
		for _, cl := range cov.Classes {
			n += cl.Violations[Total]
		}
		if n != 1 {
			t.Errorf("%d total violations counted; want the crash's one", n)
		}
	})
}

// TestHangCountsWhatItHandsOut: the findings a check made before it hung
// are counted in the coverage, as the abandoned run would have counted
// them: a report does not list a finding whose violation it never counted.
func TestHangCountsWhatItHandsOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := testCase(testGrant(roomy), testWorld, []core.Op{
			op("fs_read", "/work/data.txt"),
			op("tool", "echo", "hi"),
		})
		release := make(chan struct{})
		defer close(release)
		cov := new(Coverage)
		got := check(infallible(func(g core.Grant, w core.World) core.Sandbox {
			return readsSiblingThenHangs{readsSibling{wrap(g, w)}, release}
		}), c, cov, Options{Timeout: 100 * time.Millisecond})
		var confinement uint64
		for _, cl := range cov.Classes {
			confinement += cl.Violations[Confinement]
		}
		if len(got) != 2 || got[0].Invariant != Confinement || !got[1].Hang || confinement != 1 {
			t.Errorf("findings %+v, %d confinement violations counted; want the escape and then the hang, the escape counted", got, confinement)
		}
	})
}
