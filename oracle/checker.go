package oracle

import (
	"fmt"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// DefaultTimeout is how long Check waits for one op, or for the factory,
// before it calls the sandbox hung.
const DefaultTimeout = 2 * time.Second

// DefaultStartTimeout is the least time the factory gets to build a
// sandbox when Options.StartTimeout is not set: starting a sandbox in
// another process (an interpreter, a server) takes longer than an op.
const DefaultStartTimeout = 10 * time.Second

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
	start   time.Duration // the factory's timeout
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
	// ctl controls the worker's check; each check starts it afresh
	// (control.reuse). A worker given up on keeps it: its hung check may
	// still read it.
	ctl control
}

type job struct {
	f   core.Factory
	c   Case
	ctl *control
}

// NewChecker returns a Checker for the sandboxes f builds.
func NewChecker(f core.Factory, opt Options) *Checker {
	t := opt.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	start := opt.StartTimeout
	if start <= 0 {
		start = max(t, DefaultStartTimeout)
	}
	timer := time.NewTimer(t)
	timer.Stop()
	return &Checker{f: f, opt: opt, timeout: t, start: start, timer: timer}
}

// watchTicks is how many times per timeout the watchdog looks at a
// check's progress: a hang is called between one timeout and one timeout
// and a quarter after the op started.
const watchTicks = 4

// Check judges one scenario, as the function Check does.
func (k *Checker) Check(c Case, cov *Coverage) []Finding { return k.CheckOn(k.f, c, cov) }

// CheckOn is Check with the sandboxes of this scenario built by f instead
// of the Checker's factory: for a factory made for one scenario (one that
// counts what the scenario hits, say). f goes to the check's goroutine
// with the scenario, so a check given up on keeps calling only its own.
func (k *Checker) CheckOn(f core.Factory, c Case, cov *Coverage) []Finding {
	if k.w == nil {
		k.w = &checkWorker{jobs: make(chan job), done: make(chan []Finding, 1)}
		go k.w.serve(k.opt.Observe)
	}
	w := k.w
	ctl := &w.ctl
	ctl.reuse()
	ctl.at(phaseBuild, 0)
	w.jobs <- job{f, c, ctl}
	// The machine's clock bounds only how long we wait for a hang; it never
	// feeds a verdict or an output. The watchdog looks watchTicks times a
	// timeout; a check whose progress (phase and step) has not changed for
	// that many looks is hung, so each op gets the timeout, not the whole.
	last, still := ctl.progress.Load(), 0
	k.timer.Reset(k.timeout / watchTicks)
	for {
		select {
		case fs := <-w.done:
			k.timer.Stop()
			cov.drain(&w.scratch, c.classes())
			return fs
		case <-k.timer.C:
			select {
			case fs := <-w.done: // finished as the timer fired
				cov.drain(&w.scratch, c.classes())
				return fs
			default:
			}
			if now := ctl.progress.Load(); now != last {
				last, still = now, 0
			} else if still++; still >= k.patience(now) {
				return k.hang(c, ctl, last, cov)
			}
			k.timer.Reset(k.timeout / watchTicks)
		}
	}
}

// patience is how many unchanged looks the watchdog allows at progress p:
// watchTicks for an op, as many as StartTimeout takes while the factory
// builds a sandbox.
func (k *Checker) patience(p int64) int {
	if ph, step := phase(p>>32), p&(1<<32-1); ph == phaseBuild || ph == phaseReplay && step == 0 {
		return max(watchTicks, int((k.start*watchTicks+k.timeout-1)/k.timeout))
	}
	return watchTicks
}

// hang gives up on the check ctl controls, stuck at progress stuck: the worker is abandoned (it ends
// when the hung call returns), the scenario's sandboxes are closed, and the
// hang becomes a total finding on the op that did not return, counted in
// cov (the rest of the abandoned scenario's counts are dropped).
func (k *Checker) hang(c Case, ctl *control, stuck int64, cov *Coverage) []Finding {
	close(k.w.jobs) // the abandoned worker ends once the hung call returns
	k.w = nil
	ctl.stop()
	closeWithin(ctl, closeWait)
	p, step := phase(stuck>>32), int(stuck&(1<<32-1)) // where the watchdog saw it stuck
	f := Finding{Invariant: Total, Step: step, Hang: true}
	switch {
	case p == phaseBuild:
		f.Detail = fmt.Sprintf("building the sandbox did not return within %v (a hang)", k.start)
	case p == phaseRun && step > 0:
		f.Detail = fmt.Sprintf("%s did not return within %v (a hang)", FormatOp(c.op(step-1)), k.timeout)
	case p == phaseReplay && step > 0:
		f.Detail = fmt.Sprintf("%s did not return within %v in the replay, though it returned in the first run (a hang)",
			FormatOp(c.op(step-1)), k.timeout)
	case p == phaseReplay:
		f.Step, f.Detail = 0, fmt.Sprintf("building the sandbox a second time, for the replay, did not return within %v (a hang)", k.start)
	case p == phaseGrant:
		f.Step, f.Detail = 0, fmt.Sprintf("the sandbox's Grant did not return within %v (a hang)", k.timeout)
	default:
		f.Step, f.Detail = 0, fmt.Sprintf("closing the sandbox did not return within %v (a hang)", k.timeout)
	}
	class := c.class(f.Step - 1)
	cov.Scenarios++
	cov.Checked[Total][class]++
	cov.Violations[Total][class]++
	return []Finding{f}
}

// closeWithin closes the sandboxes of a hung check, waiting at most d: a
// Close that hangs too is left behind rather than hanging the harness.
func closeWithin(ctl *control, d time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctl.closeAll()
	}()
	t := time.NewTimer(d)
	select {
	case <-done:
	case <-t.C:
	}
	t.Stop()
}

// Close stops the Checker's goroutine (unless it is hung, in which case it
// is already abandoned).
func (k *Checker) Close() {
	if k.w != nil {
		close(k.w.jobs)
		k.w = nil
	}
}

func (w *checkWorker) serve(observe func(StepReport)) {
	for j := range w.jobs {
		fs := checkNow(j.f, j.c, &w.scratch, j.ctl, observe)
		if j.ctl.halted() {
			return // given up on: the Checker has moved on without us
		}
		w.done <- fs
	}
}
