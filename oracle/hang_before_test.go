package oracle

import (
	"strings"
	"sync/atomic"
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

// grantBreaksOnClose is closableHang whose Grant panics once it was
// closed: a sandbox the harness's own Close leaves broken.
type grantBreaksOnClose struct {
	closableHang
	broken *atomic.Bool
}

func (s grantBreaksOnClose) Grant() core.GrantView {
	if s.broken.Load() {
		panic("closed")
	}
	return s.closableHang.Grant()
}

func (s grantBreaksOnClose) Close() error {
	s.broken.Store(true)
	err := s.closableHang.Close()
	// The hung op returns: the abandoned worker carries on, and in the
	// bubble it is done with what it judges before Close returns.
	time.Sleep(time.Millisecond)
	return err
}

// TestHangIsNotBlamedOnWhatItsCloseBroke: the replay hangs at its third
// op; closing the hung sandbox breaks it (its Grant panics from then on),
// and the abandoned worker, carrying on once the op returns, judges the
// cut-short step and the broken Grant. What it finds then is the harness's
// doing: the check's one finding is the hang.
func TestHangIsNotBlamedOnWhatItsCloseBroke(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var built, closes atomic.Int64
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			at := 0
			if built.Add(1) == 2 {
				at = 3 // the replay's sandbox hangs on its third op
			}
			sb, _ := newClosableHang(at, &closes)(g, w)
			return grantBreaksOnClose{sb.(closableHang), new(atomic.Bool)}, nil
		}
		got := check(f, hangCase(), new(Coverage), Options{Timeout: 30 * time.Millisecond})
		if len(got) != 1 || !got[0].Hang || got[0].Step != 3 {
			t.Fatalf("findings %v; want the hang at step 3 alone", got)
		}
	})
}

// grantPanicsCloseHangs panics in Grant, read as it is built, and never
// returns from Close until released.
type grantPanicsCloseHangs struct {
	wrapped
	release chan struct{}
}

func (s grantPanicsCloseHangs) Grant() core.GrantView { panic("grant lost") }
func (s grantPanicsCloseHangs) Close() error          { <-s.release; return nil }

// TestHangKeepsACrashOfTheBuild: a sandbox whose Grant panics as it is
// built, and whose Close then hangs, has the crash for its total finding,
// though both are of no op (step 0).
func TestHangKeepsACrashOfTheBuild(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		got := check(infallible(func(g core.Grant, w core.World) core.Sandbox {
			return grantPanicsCloseHangs{wrap(g, w), release}
		}), hangCase(), new(Coverage), Options{Timeout: 100 * time.Millisecond})
		if len(got) != 1 || got[0].Invariant != Total || got[0].Hang || !strings.Contains(got[0].Detail, "grant lost") {
			t.Errorf("findings %+v; want the crash of Grant alone, no hang", got)
		}
	})
}
