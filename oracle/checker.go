package oracle

import (
	"fmt"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// DefaultTimeout is how long Check waits for one op, or for the factory,
// before it calls the sandbox hung.
const DefaultTimeout = 5 * time.Second

// closeWait bounds how long a Checker waits for Close on a hung sandbox.
const closeWait = time.Second

// Checker judges scenarios one at a time on a goroutine of its own, so that
// a sandbox that never returns becomes a total finding instead of a hung
// harness. On a hang it closes the sandboxes of that scenario (io.Closer),
// which must make the hung Run return; the worker goroutine then ends by
// itself, and the next scenario gets a new one. (A hung sandbox that is not
// a Closer, or ignores Close, keeps its goroutine: Go cannot stop one from
// outside.) A Checker is not safe for concurrent use; Close it when done.
type Checker struct {
	f       core.Factory
	opt     Options
	timeout time.Duration
	timer   *time.Timer
	w       *checkWorker // nil until the first Check, and after a hang
}

// checkWorker is the goroutine that runs scenarios, and what it owns. Its
// scratch coverage is merged into the caller's after each scenario, so a
// worker abandoned mid-scenario leaves no half-counted scenario behind.
type checkWorker struct {
	jobs    chan job
	done    chan []Finding // buffered: a worker given up on never blocks on it
	scratch Coverage
}

type job struct {
	c   Case
	ctl *control
}

// NewChecker returns a Checker for the sandboxes f builds.
func NewChecker(f core.Factory, opt Options) *Checker {
	t := opt.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	timer := time.NewTimer(t)
	timer.Stop()
	return &Checker{f: f, opt: opt, timeout: t, timer: timer}
}

// Check judges one scenario, as the function Check does.
func (k *Checker) Check(c Case, cov *Coverage) []Finding {
	if k.w == nil {
		k.w = &checkWorker{jobs: make(chan job), done: make(chan []Finding, 1)}
		go k.w.serve(k.f, k.opt.Observe)
	}
	w := k.w
	ctl := new(control)
	w.jobs <- job{c, ctl}
	// The machine's clock bounds only how long we wait for a hang; it never
	// feeds a verdict or an output. The watchdog is reset whenever the
	// check moves on to another op, so it bounds each op, not the whole.
	last := ctl.progress.Load()
	k.timer.Reset(k.timeout)
	for {
		select {
		case fs := <-w.done:
			k.timer.Stop()
			cov.Add(&w.scratch)
			w.scratch = Coverage{}
			return fs
		case <-k.timer.C:
			select {
			case fs := <-w.done: // finished as the timer fired
				cov.Add(&w.scratch)
				w.scratch = Coverage{}
				return fs
			default:
			}
			if now := ctl.progress.Load(); now != last {
				last = now
				k.timer.Reset(k.timeout)
				continue
			}
			return k.hang(c, ctl)
		}
	}
}

// hang gives up on the check ctl controls: the worker is abandoned (it ends
// when the hung call returns), the scenario's sandboxes are closed, and the
// hang becomes a total finding on the op that did not return.
func (k *Checker) hang(c Case, ctl *control) []Finding {
	close(k.w.jobs) // the abandoned worker ends once the hung call returns
	k.w = nil
	closeAll(ctl.stop())
	p, step := ctl.where()
	f := Finding{Invariant: Total, Step: step, Hang: true}
	switch {
	case p == phaseBuild:
		f.Detail = fmt.Sprintf("building the sandbox did not return within %v (a hang)", k.timeout)
	case p == phaseRun && step > 0:
		f.Detail = fmt.Sprintf("%s did not return within %v (a hang)", FormatOp(c.op(step-1)), k.timeout)
	case p == phaseReplay && step > 0:
		f.Detail = fmt.Sprintf("%s did not return within %v in the replay, though it returned in the first run (a hang)",
			FormatOp(c.op(step-1)), k.timeout)
	case p == phaseReplay:
		f.Step, f.Detail = 0, fmt.Sprintf("building the sandbox a second time, for the replay, did not return within %v (a hang)", k.timeout)
	case p == phaseGrant:
		f.Detail = fmt.Sprintf("the sandbox's Grant did not return within %v (a hang)", k.timeout)
	default:
		f.Detail = fmt.Sprintf("closing the sandbox did not return within %v (a hang)", k.timeout)
	}
	return []Finding{f}
}

// closeAll closes hung sandboxes, each waited for at most closeWait: a
// Close that hangs too is left behind rather than hanging the harness.
func closeAll(sbs []core.Sandbox) {
	for _, sb := range sbs {
		done := make(chan struct{})
		go func() {
			defer close(done)
			closeSandbox(sb)
		}()
		t := time.NewTimer(closeWait)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
}

// Close stops the Checker's goroutine (unless it is hung, in which case it
// is already abandoned).
func (k *Checker) Close() {
	if k.w != nil {
		close(k.w.jobs)
		k.w = nil
	}
}

func (w *checkWorker) serve(f core.Factory, observe func(StepReport)) {
	for j := range w.jobs {
		fs := checkNow(f, j.c, &w.scratch, j.ctl, observe)
		if j.ctl.halted() {
			return // given up on: the Checker has moved on without us
		}
		w.done <- fs
	}
}
