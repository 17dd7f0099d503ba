package oracle

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
)

// closableHang is the reference, except that op number hangAt (from 1)
// blocks until the sandbox is closed; it counts its Close calls.
type closableHang struct {
	wrapped
	hangAt int
	ran    *int
	closed chan struct{}
	once   *sync.Once
	closes *atomic.Int64
}

func newClosableHang(hangAt int, closes *atomic.Int64) core.Factory {
	return func(g core.Grant, w core.World) (core.Sandbox, error) {
		return closableHang{wrap(g, w), hangAt, new(int), make(chan struct{}), new(sync.Once), closes}, nil
	}
}

func (s closableHang) Run(op core.Op) core.Result {
	if *s.ran++; *s.ran == s.hangAt {
		<-s.closed
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

func (s closableHang) Close() error {
	s.closes.Add(1)
	s.once.Do(func() { close(s.closed) })
	return nil
}

func hangCase() checkCase {
	return testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("tool", "echo", "hi"),
		op("fs_write", "/work/out/a", "x"),
		op("net_fetch", "api.internal", "/status"),
	})
}

// The tests of hangs run in a synctest bubble (synctest.Test): there the
// clock moves only when every goroutine of the bubble is blocked, so an
// op that returns takes no time at all, however loaded the machine, and
// the watchdog's timeouts are exact. No real time is spent waiting for
// them either.

// TestHangNamesTheOpThatHung: the finding is on the op that did not return,
// not the one before it, and the hung sandbox is closed.
func TestHangNamesTheOpThatHung(t *testing.T) {
	for _, at := range []int{1, 3, 4} {
		synctest.Test(t, func(t *testing.T) {
			var closes atomic.Int64
			got := check(newClosableHang(at, &closes), hangCase(), new(Coverage), Options{Timeout: 50 * time.Millisecond})
			want := []Finding{{Invariant: Total, Step: at, Hang: true}}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Finding{}, "Detail")); diff != "" {
				t.Fatalf("hang at op %d: findings mismatch (-want +got):\n%s", at, diff)
			}
			mustContain(t, got[0], formatOp(hangCase().op(at-1)), "did not return within 50ms")
			if closes.Load() == 0 {
				t.Errorf("hang at op %d: the hung sandbox was never closed", at)
			}
		})
	}
}

// readsSiblingThenHangs escapes its root on every read that succeeds
// (readsSibling) and never returns from a tool op until released.
type readsSiblingThenHangs struct {
	readsSibling
	release chan struct{}
}

func (s readsSiblingThenHangs) Run(op core.Op) core.Result {
	if op.Kind == core.OpTool {
		<-s.release
	}
	return s.readsSibling.Run(op)
}

// TestHangKeepsWhatWasFoundBefore: a check given up on at a hang still
// hands out what it found at the ops before it, in order, the hang last:
// a confinement escape at op 1 is not hidden by a hang at op 2. Both are
// counted in the coverage: a report does not list a finding whose
// violation it never counted.
func TestHangKeepsWhatWasFoundBefore(t *testing.T) {
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
		want := []Finding{{Invariant: Confinement, Step: 1}, {Invariant: Total, Step: 2, Hang: true}}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Finding{}, "Detail")); diff != "" {
			t.Fatalf("findings mismatch (-want +got):\n%s", diff)
		}
		mustContain(t, got[0], "/workshop/secret")
		var confinement uint64
		for _, cl := range cov.Classes {
			confinement += cl.Violations[Confinement]
		}
		if confinement != 1 {
			t.Errorf("%d confinement violations counted; want the escape's one", confinement)
		}
	})
}

// TestHangsLeakNoGoroutines: 200 hangs of a sandbox that returns once
// closed leave the bubble's goroutines as the first hang left them (the
// checker keeps a worker from then on).
func TestHangsLeakNoGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var closes atomic.Int64
		f := newClosableHang(2, &closes)
		k := NewChecker(f, Options{Timeout: 5 * time.Millisecond})
		defer k.Close()
		var before int
		for i := range 200 {
			if got := k.checkOn(k.f, hangCase(), new(Coverage)); len(got) != 1 || !got[0].Hang {
				t.Fatalf("hang %d: %v", i, got)
			}
			if i == 0 {
				synctest.Wait()
				before = bubbleGoroutines()
			}
		}
		synctest.Wait() // the abandoned workers end once their Run returns
		after := bubbleGoroutines()
		if after != before {
			t.Fatalf("199 hangs took the bubble's goroutines from %d to %d", before, after)
		}
		if n := closes.Load(); n < 200 {
			t.Errorf("200 hangs closed %d sandboxes", n)
		}
	})
}

// TestNoObserveAfterAHang: once Check has returned, the hung run calls no
// Observe (go test -race catches the write that would race with the read).
func TestNoObserveAfterAHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var closes atomic.Int64
		var steps []int
		got := checkObserved(newClosableHang(2, &closes), hangCase(), new(Coverage), Options{Timeout: 20 * time.Millisecond},
			func(r engine.StepReport) { steps = append(steps, r.Step) })
		if len(got) != 1 || got[0].Step != 2 {
			t.Fatalf("findings %v, want the hang at step 2", got)
		}
		synctest.Wait() // the hung run is closed, and has returned
		if diff := cmp.Diff([]int{1}, steps); diff != "" {
			t.Fatalf("observed steps mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestSlowButMovingIsNotAHang: the timeout bounds each op, not the
// scenario: ops of 15 ms under a 40 ms timeout finish whatever their sum.
func TestSlowButMovingIsNotAHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := infallible(func(g core.Grant, w core.World) core.Sandbox { return slowOps{wrap(g, w)} })
		c := hangCase()
		if got := check(slow, c, new(Coverage), Options{Timeout: 40 * time.Millisecond}); len(got) != 0 {
			t.Fatalf("a slow sandbox is called hung: %v", got)
		}
	})
}

type slowOps struct{ wrapped }

func (s slowOps) Run(op core.Op) core.Result {
	time.Sleep(15 * time.Millisecond)
	return s.Reference.Run(op)
}

// TestFactoryError: a sandbox that cannot start is a total finding at step
// 0 that carries the factory's error, not a panic.
func TestFactoryError(t *testing.T) {
	failing := func(core.Grant, core.World) (core.Sandbox, error) { return nil, errors.New("no such binary") }
	got := check(failing, hangCase(), new(Coverage), Options{})
	want := []Finding{{Invariant: Total, Step: 0}}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Finding{}, "Detail")); diff != "" {
		t.Fatalf("findings mismatch (-want +got):\n%s", diff)
	}
	mustContain(t, got[0], "could not be built", "no such binary")
	nothing := func(core.Grant, core.World) (core.Sandbox, error) { return nil, nil }
	if got := check(nothing, hangCase(), new(Coverage), Options{}); len(got) != 1 || got[0].Invariant != Total {
		t.Fatalf("a factory returning nil, nil: %v", got)
	}
}

// timedOut is an error that says it is a timeout, as the doors' start
// timeouts do.
type timedOut struct{}

func (timedOut) Error() string { return "initialize: the server did not answer within 1m0s" }
func (timedOut) Timeout() bool { return true }

// TestFactoryTimeoutIsAHang: a sandbox that did not start in time (its
// error says it is a timeout), for the run or for its replay, is a total
// finding at step 0 marked a hang, which a campaign confirms before it
// counts; one that failed otherwise is not.
func TestFactoryTimeoutIsAHang(t *testing.T) {
	slow := func(core.Grant, core.World) (core.Sandbox, error) {
		return nil, fmt.Errorf("starting: %w", timedOut{})
	}
	got := check(slow, hangCase(), new(Coverage), Options{})
	if len(got) != 1 || got[0].Invariant != Total || got[0].Step != 0 || !got[0].Hang {
		t.Fatalf("a factory that timed out: %v, want one total finding at step 0, a hang", got)
	}
	var builds atomic.Int64
	slowSecond := func(g core.Grant, w core.World) (core.Sandbox, error) {
		if builds.Add(1) == 2 {
			return nil, timedOut{}
		}
		return core.NewReference(g, w), nil
	}
	if got := check(slowSecond, hangCase(), new(Coverage), Options{}); len(got) != 1 || got[0].Invariant != Total || got[0].Step != 0 || !got[0].Hang {
		t.Fatalf("a factory that timed out building the replay's sandbox: %v, want one total finding at step 0, a hang", got)
	}
	broken := func(core.Grant, core.World) (core.Sandbox, error) { return nil, errors.New("no such binary") }
	if got := check(broken, hangCase(), new(Coverage), Options{}); len(got) != 1 || got[0].Hang {
		t.Fatalf("a factory that failed: %v, want one total finding, no hang", got)
	}
}

// TestSandboxesAreClosed: both sandboxes of a check (the run and its
// replay) are closed when it ends.
func TestSandboxesAreClosed(t *testing.T) {
	var closes atomic.Int64
	if got := check(newClosableHang(99, &closes), hangCase(), new(Coverage), Options{}); len(got) != 0 {
		t.Fatalf("findings on a sandbox that does not hang: %v", got)
	}
	if n := closes.Load(); n != 2 {
		t.Fatalf("%d sandboxes closed, want 2 (the run and the replay)", n)
	}
	// A Checker's worker controls check after check with one control,
	// which must forget the sandboxes of the check before (closed once
	// each already) and close each check's own.
	closes.Store(0)
	k := NewChecker(newClosableHang(99, &closes), Options{})
	defer k.Close()
	for i := range 3 {
		if got := k.checkOn(k.f, hangCase(), new(Coverage)); len(got) != 0 {
			t.Fatalf("check %d: findings on a sandbox that does not hang: %v", i+1, got)
		}
		if n := closes.Load(); n != int64(2*(i+1)) {
			t.Fatalf("after %d checks by one Checker, %d sandboxes closed, want %d", i+1, n, 2*(i+1))
		}
	}
}

// slowFactory builds the reference after sleeping d, and counts the Close
// calls of what it built.
func slowFactory(d time.Duration, closes *atomic.Int64) core.Factory {
	return func(g core.Grant, w core.World) (core.Sandbox, error) {
		time.Sleep(d)
		return newClosableHang(0, closes)(g, w)
	}
}

// TestHangWhileBuilding: a factory slower than the timeout is a hang at
// step 0, and the sandbox it builds late is closed all the same.
func TestHangWhileBuilding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const buildTime = 80 * time.Millisecond // past both timeouts below
		var closes atomic.Int64
		got := check(slowFactory(buildTime, &closes), hangCase(), new(Coverage), Options{Timeout: 20 * time.Millisecond, StartTimeout: 20 * time.Millisecond})
		if len(got) != 1 || !got[0].Hang || got[0].Step != 0 {
			t.Fatalf("findings %v, want one hang at step 0", got)
		}
		mustContain(t, got[0], "building the sandbox did not return")
		time.Sleep(2 * buildTime) // the factory has returned, late
		synctest.Wait()           // and what it built is closed
		if n := closes.Load(); n != 1 {
			t.Fatalf("the sandbox built after the hang was closed %d times, want 1", n)
		}
	})
}

// TestHangInTheReplay: an op that returns in the first run and hangs in
// the replay is named as such.
func TestHangInTheReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var built atomic.Int64
		var closes atomic.Int64
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			at := 0
			if built.Add(1) == 2 {
				at = 3 // the replay's sandbox hangs on its third op
			}
			return newClosableHang(at, &closes)(g, w)
		}
		got := check(f, hangCase(), new(Coverage), Options{Timeout: 30 * time.Millisecond})
		if len(got) != 1 || !got[0].Hang || got[0].Step != 3 {
			t.Fatalf("findings %v, want a hang at step 3", got)
		}
		mustContain(t, got[0], "in the replay, though it returned in the first run")
	})
}

// TestHangIsCounted: a hang is counted as a checked and violated total,
// so a report never shows a hang finding next to zero violations.
func TestHangIsCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var closes atomic.Int64
		c := hangCase()
		c.Scenario.Steps[1].Class = attack.ToolVariant
		var cov Coverage
		if got := check(newClosableHang(2, &closes), c, &cov, Options{Timeout: 20 * time.Millisecond}); len(got) != 1 {
			t.Fatalf("findings %v, want the hang", got)
		}
		if cov.Scenarios != 1 || cov.Classes[attack.ToolVariant].Violations[Total] != 1 || cov.Classes[attack.ToolVariant].Checked[Total] != 1 {
			t.Fatalf("coverage after a hang: %d scenarios, total checked %d violated %d on tool-variant",
				cov.Scenarios, cov.Classes[attack.ToolVariant].Checked[Total], cov.Classes[attack.ToolVariant].Violations[Total])
		}
	})
}

// TestHangCalledInTime: the watchdog calls a hang once the op has made no
// progress for a timeout, and no later than a timeout and a quarter (it
// looks four times a timeout), not two. In the bubble the clock is exact,
// so the window is the watchdog's own, with no slack for a loaded machine.
func TestHangCalledInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var closes atomic.Int64
		const timeout = 200 * time.Millisecond
		start := time.Now()
		if got := check(newClosableHang(1, &closes), hangCase(), new(Coverage), Options{Timeout: timeout}); len(got) != 1 {
			t.Fatalf("findings %v, want the hang", got)
		}
		if took := time.Since(start); took < timeout || took > timeout*5/4 {
			t.Fatalf("the hang was called after %v, want between %v and %v", took, timeout, timeout*5/4)
		}
	})
}

// panicky is the reference, except that Usage or Grant panics.
type panicky struct {
	wrapped
	inUsage bool
}

func (s panicky) Usage() core.Usage {
	if s.inUsage {
		panic("usage meter broke")
	}
	return s.Reference.Usage()
}

func (s panicky) Grant() core.GrantView {
	if !s.inUsage {
		panic("grant view broke")
	}
	return s.Reference.Grant()
}

// TestPanicsOutsideRunAreTotal: a panic in Usage or Grant is the
// sandbox's, a total finding, not a crash of the harness.
func TestPanicsOutsideRunAreTotal(t *testing.T) {
	for _, inUsage := range []bool{true, false} {
		f := infallible(func(g core.Grant, w core.World) core.Sandbox { return panicky{wrap(g, w), inUsage} })
		got := check(f, hangCase(), new(Coverage), Options{})
		if len(got) == 0 || got[0].Invariant != Total {
			t.Fatalf("panic in Usage=%v: findings %v, want total", inUsage, got)
		}
		mustContain(t, got[0], "panicked", "broke")
	}
}

// lateWriter is the reference, except that op number hangAt blocks until
// release is closed, whatever Close does, and then returns, leaving a
// goroutine that writes to its world a thousand times: a hung sandbox that
// wakes up after the Checker gave up on it, and goes on writing.
type lateWriter struct {
	wrapped
	hangAt  int
	ran     *int
	release chan struct{}
	wrote   chan struct{}
}

func (s lateWriter) Run(op core.Op) core.Result {
	if *s.ran++; *s.ran == s.hangAt {
		<-s.release
		go func() {
			for range 1000 {
				s.world.Write("/work/out/late", "x")
				s.world.Realpath("/work/out/late")
			}
			close(s.wrote)
		}()
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

// TestAHungCheckKeepsItsMemory: a check given up on is not recycled — not
// its run, its model, its worlds nor the world it prepared — because its
// sandbox may wake up and write to its world while later checks run in
// recycled memory. Checks on the same Checker while the hung sandbox
// writes must judge the reference clean (and, under -race, share nothing
// with it).
func TestAHungCheckKeepsItsMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release, wrote := make(chan struct{}), make(chan struct{})
		hanging := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return lateWriter{wrap(g, w), 2, new(int), release, wrote}, nil
		}
		k := NewChecker(hanging, Options{Timeout: 50 * time.Millisecond})
		defer k.Close()
		if fs := k.checkOn(k.f, hangCase(), new(Coverage)); len(fs) != 1 || !fs[0].Hang {
			t.Fatalf("want a hang, got %v", fs)
		}
		judge := func() {
			t.Helper()
			for range 20 {
				if fs := k.checkOn(core.ReferenceFactory, hangCase(), new(Coverage)); len(fs) > 0 {
					t.Fatalf("the reference, checked after a hang: %v", fs)
				}
			}
		}
		judge()
		close(release) // the hung sandbox wakes up and writes while more checks run
		judge()
		<-wrote
		judge()
	})
}

// bubbleGoroutines counts the goroutines of the calling synctest bubble:
// a traceback names the bubble of each goroutine in one, and begins with
// the calling goroutine.
func bubbleGoroutines() int {
	buf := make([]byte, 1<<16)
	n := runtime.Stack(buf, true)
	for n == len(buf) {
		buf = make([]byte, 2*len(buf))
		n = runtime.Stack(buf, true)
	}
	bubbleOf := func(header string) string {
		_, b, _ := strings.Cut(strings.TrimSuffix(header, "]:"), ", synctest bubble ")
		return b
	}
	var bubble string
	count := 0
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if !strings.HasPrefix(line, "goroutine ") {
			continue
		}
		if bubble == "" {
			if bubble = bubbleOf(line); bubble == "" {
				panic("bubbleGoroutines called outside a synctest bubble")
			}
		}
		if bubbleOf(line) == bubble {
			count++
		}
	}
	return count
}
