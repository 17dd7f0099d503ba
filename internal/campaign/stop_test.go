package campaign

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// stopPatience bounds each wait of these tests for a campaign to end that
// ends within seconds: only reached when a test fails, it is far above the
// bounds it checks, and a campaign that does not stop waits out the
// op timeout of hangTimeout, far above it in turn.
//
// interruptBound and abortBound are what docs/cli.md promises: a command
// interrupted exits within the first, one stopped by a second signal
// within the second; written here, not taken from EndTime and
// AbortEndTime, so that those made longer by mistake fail these tests.
// stopSlack is what the tests allow a busy machine to add to them: far
// more than scheduling and the writing of a finding take, yet well short
// of a stop's stage made longer by mistake.
const (
	stopPatience   = 2 * time.Minute
	hangTimeout    = time.Hour
	interruptBound = 2 * time.Second
	abortBound     = time.Second
	stopSlack      = 8 * time.Second
)

// stuckMinimizer is a Target whose first session (the one worker's) is the
// sandbox that reads everything, and whose later ones (the minimizer's)
// build sandboxes whose every op blocks until their session ends: each
// finding's minimization is stuck in its first judgement, as on a server
// that stops answering, and never ends by itself within hangTimeout.
type stuckMinimizer struct {
	started atomic.Int64
	blocked chan struct{} // closed when a minimizer's op first blocks
	once    sync.Once
}

func newStuckMinimizer() *stuckMinimizer { return &stuckMinimizer{blocked: make(chan struct{})} }

func (s *stuckMinimizer) target() sut.Target {
	return sut.Target{Name: "stuck-minimizer", Start: func() (core.Factory, func() error, error) {
		if s.started.Add(1) == 1 {
			return readsEverything, func() error { return nil }, nil
		}
		ended := make(chan struct{})
		end := sync.OnceFunc(func() { close(ended) })
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return blockingSandbox{core.NewReference(g, w), ended, func() { s.once.Do(func() { close(s.blocked) }) }}, nil
		}
		return f, func() error { end(); return nil }, nil
	}}
}

// blockingSandbox is the reference, except that each op waits until its
// session ends.
type blockingSandbox struct {
	*core.Reference
	ended   chan struct{}
	blocked func()
}

func (b blockingSandbox) Run(op core.Op) core.Result {
	b.blocked()
	<-b.ended
	return b.Reference.Run(op)
}

// runStuck runs a campaign of one worker against a stuck minimizer and
// calls stop once the minimization is stuck; it returns the result and how
// long the campaign took to return after stop.
func runStuck(t *testing.T, cfg Config, stop func()) (*Result, time.Duration) {
	t.Helper()
	s := newStuckMinimizer()
	cfg.Seed, cfg.Workers, cfg.Target, cfg.Timeout, cfg.Out = 1, 1, s.target(), hangTimeout, t.TempDir()
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		res, err := Run(ctx, cfg)
		done <- outcome{res, err}
	}()
	select {
	case <-s.blocked:
	case <-time.After(stopPatience):
		t.Fatalf("no minimization started within %v", stopPatience)
	}
	start := time.Now()
	if stop == nil {
		cancel()
	} else {
		stop()
	}
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res, time.Since(start)
	case <-time.After(stopPatience):
		t.Fatalf("the campaign had not returned %v after it was stopped", stopPatience)
	}
	return nil, 0
}

// checkWrittenAsFound checks that res has findings, each written as it was
// found, its header saying so, and failing again on the sandbox that
// reads everything while the reference passes it.
func checkWrittenAsFound(t *testing.T, res *Result) {
	t.Helper()
	if len(res.Findings) == 0 {
		t.Fatal("the finding whose minimization was stuck is lost")
	}
	for _, f := range res.Findings {
		if !f.Unminimized {
			t.Errorf("%s: minimized, though its minimization never returned", f.Path)
		}
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "# not minimized: the campaign stopped first") {
			t.Errorf("%s: the header does not say it is not minimized:\n%s", f.Path, src)
		}
		sc, err := scenario.Parse(f.Path, src)
		if err != nil {
			t.Fatal(err)
		}
		if out, _ := replay.Run(f.Path, sc, readsEverything, nil); !out.Failed() {
			t.Errorf("%s does not fail again on the sandbox it was found on", f.Path)
		}
		if out, _ := replay.Run(f.Path, sc, core.ReferenceFactory, nil); out.Failed() {
			t.Errorf("%s fails on the reference", f.Path)
		}
	}
}

// TestInterruptEndsInBoundedTime: an interrupted campaign returns within
// EndTime even though the minimization under way never returns by itself:
// it gives the minimization up, and writes the finding as it was found.
func TestInterruptEndsInBoundedTime(t *testing.T) {
	res, took := runStuck(t, Config{Duration: stopPatience}, nil)
	if EndTime > interruptBound || took > interruptBound+stopSlack {
		t.Errorf("returned %v after the interrupt, EndTime %v; want within %v (and %v of slack)", took, EndTime, interruptBound, stopSlack)
	}
	if !res.Interrupted {
		t.Error("the result does not say it was interrupted")
	}
	checkWrittenAsFound(t, res)
}

// TestAbortWritesWhatIsFound: closing Abort ends the campaign at once, its
// context still live, writing what is found as it was found.
func TestAbortWritesWhatIsFound(t *testing.T) {
	abort := make(chan struct{})
	res, took := runStuck(t, Config{Duration: stopPatience, Abort: abort}, func() { close(abort) })
	if AbortEndTime > abortBound || took > abortBound+stopSlack {
		t.Errorf("returned %v after the abort, AbortEndTime %v; want within %v (and %v of slack)", took, AbortEndTime, abortBound, stopSlack)
	}
	if !res.Interrupted {
		t.Error("the result does not say it was interrupted")
	}
	checkWrittenAsFound(t, res)
}

// TestDurationEndsInBoundedTime: a timed campaign ends within
// DurationEndTime after its Duration, minimization included, though the
// minimization under way never returns by itself.
func TestDurationEndsInBoundedTime(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out DurationStopTime")
	}
	start := time.Now()
	res, _ := runStuck(t, Config{Duration: time.Second}, func() {})
	t.Logf("a campaign of 1s returned after %v (DurationEndTime %v)", time.Since(start), DurationEndTime)
	if res.Interrupted {
		t.Error("a timed campaign that ran its course says it was interrupted")
	}
	checkWrittenAsFound(t, res)
}

// TestGivenUpCheckIsNotAPass: a check whose op outlasts the campaign's
// Duration (an op timeout longer than it) is given up on when the
// campaign stops, and counted so, not as a check made: the campaign
// judged nothing, and its result must not read as a clean run.
func TestGivenUpCheckIsNotAPass(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out DurationStopTime")
	}
	blocks := sut.Target{Name: "blocks", Start: func() (core.Factory, func() error, error) {
		ended := make(chan struct{})
		end := sync.OnceFunc(func() { close(ended) })
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return blockingSandbox{core.NewReference(g, w), ended, func() {}}, nil
		}
		return f, func() error { end(); return nil }, nil
	}}
	res, err := Run(context.Background(), Config{Seed: 1, Workers: 1, Duration: time.Second, Target: blocks, Timeout: hangTimeout, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.GivenUp != 1 || res.Checks != 0 || res.Raw != 0 || len(res.Findings) != 0 {
		t.Errorf("given up %d, checks %d, raw %d, findings %d; want 1 given up and nothing else", res.GivenUp, res.Checks, res.Raw, len(res.Findings))
	}
}

// TestInterruptedKeepsFinishedChecks: a campaign interrupted while its
// one worker is in a check that outlasts the stop (a slow sandbox) gives
// that worker up, and still counts the checks it finished, their ops and
// coverage: a slow sandbox stopped by SIGINT read "0 checks, 0 ops".
func TestInterruptedKeepsFinishedChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out StopTime")
	}
	const finished = 3 // checks before the one that blocks, each building two sandboxes
	blocked := make(chan struct{})
	// The blocked op outlasts its session's end too, as a call into a
	// server that is starting again does: it returns when the test ends.
	ended := make(chan struct{})
	t.Cleanup(func() { close(ended) })
	slow := sut.Target{Name: "slow", Start: func() (core.Factory, func() error, error) {
		once := sync.OnceFunc(func() { close(blocked) })
		built := 0
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			if built++; built > 2*finished {
				return blockingSandbox{core.NewReference(g, w), ended, once}, nil
			}
			return core.NewReference(g, w), nil
		}
		return f, func() error { return nil }, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-blocked
		cancel()
	}()
	res, err := Run(ctx, Config{Seed: 1, Workers: 1, Checks: 1000, Target: slow, Timeout: hangTimeout, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.GivenUp != 1 || res.Checks != finished || res.Coverage.Scenarios != finished || res.Coverage.Ops == 0 {
		t.Errorf("interrupted %v, given up %d, checks %d, scenarios %d, ops %d; want interrupted, 1 given up, and %d checks with their ops",
			res.Interrupted, res.GivenUp, res.Checks, res.Coverage.Scenarios, res.Coverage.Ops, finished)
	}
}
