package oracle

import (
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// DefaultTimeout is how long a check waits for one op, or for the grant,
// before it calls the sandbox hung (Options.Timeout).
const DefaultTimeout = 2 * time.Second

// defaultStartTimeout is the least time the factory gets to build a
// sandbox when Options.StartTimeout is not set: starting a sandbox in
// another process (an interpreter, a server) takes longer than an op.
const defaultStartTimeout = 10 * time.Second

// closeWait bounds how long a Checker waits for Close on a hung sandbox.
const closeWait = time.Second

// Checker judges scenarios one at a time on a goroutine of its own, so that
// a sandbox that never returns becomes a total finding instead of a hung
// harness. On a hang it closes the sandboxes of that scenario (io.Closer),
// which must make the hung call return; the worker goroutine then ends by
// itself, and the next scenario gets a new one. (A hung sandbox that is not
// a Closer, or ignores Close, keeps its goroutine: Go cannot stop one from
// outside.) A Checker is not safe for concurrent use; Close it when done.
type Checker struct {
	f       core.Factory
	observe func(engine.StepReport) // called after every op of a watched run, when set
	timeout time.Duration
	start   time.Duration // the factory's timeout
	timer   *time.Timer
	// w is the worker, nil until the first check. After a hang checkAll
	// starts a new one for the rest of the feed (for Check's one case, only
	// to hear that there is no more): it waits for the next check, or Close.
	w *checkWorker
}

// A caseFeed hands checkAll its checks one at a time and takes their verdicts:
// Next returns the next case and the factory to build its sandboxes with
// (nil: the Checker's), or ok false to end; Judged receives the findings
// of the case Next returned last. Next and Judged are called alternately,
// never at once, but not always on one goroutine: they run on the
// Checker's worker, except that the Judged of a case given up on (a hang)
// runs on checkAll's goroutine, and the checks after it on a new worker.
// Both must return (not call runtime.Goexit, as t.Fatal does): checkAll
// waits for the worker to say the feed ran out.
type caseFeed interface {
	Next() (c checkCase, f core.Factory, ok bool)
	Judged(c checkCase, fs []Finding)
}

// checkWorker is the goroutine that runs scenarios, and what it owns. Its
// scratch coverage is drained into the feed's after each scenario, so a
// worker abandoned mid-scenario leaves no half-counted scenario behind.
type checkWorker struct {
	jobs chan job
	// done says the job's feed ran out. It is buffered so that the worker
	// goes back to wait for a job without waiting for the watchdog's look.
	done    chan struct{}
	scratch Coverage
	// ctl controls the worker's check; each check starts it afresh
	// (control.reuse). A worker given up on keeps it: its hung check may
	// still read it.
	ctl control
	// state is seq<<2 | checkRunning while the worker's seq-th check
	// runs, seq<<2 between checks; the Checker gives up on a check by
	// swapping checkRunning for checkGivenUp, the worker claims its
	// verdict by swapping it for nothing, and only one of them can. The
	// seq is there because progress repeats from one check to the next
	// (every check starts at build,0 and ends at close,0): without it, two
	// checks each a little slow in the same phase would look like one that
	// made no progress, a hang.
	state atomic.Uint64
	// running is the check under way: the Checker reads it only once it
	// has given up on it, when the worker no longer writes it.
	running running
}

// running is the check a worker is running, and the coverage it counts
// into.
type running struct {
	c   checkCase
	cov *Coverage
}

// The low bits of checkWorker.state.
const (
	checkRunning uint64 = 1
	checkGivenUp uint64 = 2
)

// job is the work of a worker: a feed's checks, counted into cov, their
// sandboxes built by f unless the feed names another factory.
type job struct {
	feed caseFeed
	f    core.Factory
	cov  *Coverage
}

// NewChecker returns a Checker for the sandboxes f builds.
func NewChecker(f core.Factory, opt Options) *Checker { return newChecker(f, opt, nil) }

// newChecker is NewChecker with observe called after every op of every
// watched run (when not nil), on the check's goroutine, before the next
// op runs; never after the check has returned, even for a sandbox that
// hung.
func newChecker(f core.Factory, opt Options, observe func(engine.StepReport)) *Checker {
	t := opt.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	start := opt.StartTimeout
	if start <= 0 {
		start = max(t, defaultStartTimeout)
	}
	timer := time.NewTimer(t)
	timer.Stop()
	return &Checker{f: f, observe: observe, timeout: t, start: start, timer: timer}
}

// watchTicks is how many times per timeout the watchdog looks at a
// check's progress: a hang is called between one timeout and one timeout
// and a quarter after the op started.
const watchTicks = 4

// Check judges one scenario, as the function Check does: the error is
// for an invalid grant or an unknown class. cov may be nil.
func (k *Checker) Check(sc *scenario.Scenario, cov *Coverage) ([]Finding, error) {
	c, err := newCase(sc)
	if err != nil {
		return nil, err
	}
	if cov == nil {
		cov = new(Coverage)
	}
	return k.checkOn(k.f, c, cov), nil
}

// checkOn is Check with the sandboxes of this scenario built by f instead
// of the Checker's factory: for a factory made for one scenario (one that
// counts what the scenario hits, say). f goes to the check's goroutine
// with the scenario, so a check given up on keeps calling only its own.
func (k *Checker) checkOn(f core.Factory, c checkCase, cov *Coverage) []Finding {
	one := &oneCase{c: c, f: f}
	k.checkAll(one, cov)
	return one.fs
}

// oneCase is the caseFeed of checkOn: one case, and its findings.
type oneCase struct {
	c    checkCase
	f    core.Factory
	fs   []Finding
	gone bool
}

func (o *oneCase) Next() (checkCase, core.Factory, bool) {
	if o.gone {
		return checkCase{}, nil, false
	}
	o.gone = true
	return o.c, o.f, true
}

func (o *oneCase) Judged(_ checkCase, fs []Finding) { o.fs = fs }

// checkAll judges every case feed gives, each as Check does, counting into
// cov, and returns when Next says there is no more. The checks run one
// after another on the worker goroutine, with no handoff between them: a
// campaign's worker draws, checks and records scenario after scenario
// there, while checkAll's goroutine only wakes a few times a timeout to
// watch for a hang. After a hang the checks go on, on a new worker. The
// worker counts into cov: read it once checkAll has returned (or from Judged).
func (k *Checker) checkAll(feed caseFeed, cov *Coverage) {
	for {
		if k.w == nil {
			k.w = &checkWorker{jobs: make(chan job), done: make(chan struct{}, 1)}
			go k.w.serve(k.observe)
		}
		w := k.w
		w.jobs <- job{feed: feed, f: k.f, cov: cov}
		if k.watch(w, feed) {
			return
		}
	}
}

// watch watches w's checks until its feed runs out (true) or one of them
// hangs (false: the hang was judged, and w abandoned). The machine's clock
// bounds only how long we wait for a hang; it never feeds a verdict or an
// output. The watchdog looks watchTicks times a timeout; a check whose
// progress (phase and step) has not changed for that many looks is hung,
// so each op gets the timeout, not the whole.
func (k *Checker) watch(w *checkWorker, feed caseFeed) bool {
	var (
		state    uint64
		progress int64
		still    int
	)
	for {
		k.timer.Reset(k.timeout / watchTicks)
		select {
		case <-w.done:
			k.timer.Stop()
			return true
		case <-k.timer.C:
		}
		select {
		case <-w.done: // finished as the timer fired
			return true
		default:
		}
		s, p := w.state.Load(), w.ctl.progress.Load()
		switch {
		case s&checkRunning == 0 || s != state || p != progress:
			state, progress, still = s, p, 0
		case still+1 < k.patience(p):
			still++
		case w.state.CompareAndSwap(s, s&^checkRunning|checkGivenUp):
			k.hang(w, feed, p)
			return false
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

// hang gives up on w's running check, stuck at progress stuck: the worker
// is abandoned (it ends when the hung call returns), the scenario's
// sandboxes are closed, and the hang becomes a total finding on the op
// that did not return, handed to the feed after the findings the check
// made before it, unless one of those is a total finding; those findings
// are counted into the job's coverage, the rest of the abandoned
// scenario's counts dropped.
func (k *Checker) hang(w *checkWorker, feed caseFeed, stuck int64) {
	close(w.jobs) // the abandoned worker ends once the hung call returns
	k.w = nil
	ctl := &w.ctl
	ctl.stop()
	closeWithin(ctl, closeWait)
	c, cov := w.running.c, w.running.cov
	p, step := phase(stuck>>32), int(stuck&(1<<32-1)) // where the watchdog saw it stuck
	f := Finding{Invariant: Total, Step: step, Hang: true}
	switch {
	case p == phaseBuild:
		f.Detail = fmt.Sprintf("building the sandbox did not return within %v (a hang)", k.start)
	case p == phaseRun && step > 0:
		f.Detail = fmt.Sprintf("%s did not return within %v (a hang)", formatOp(c.op(step-1)), k.timeout)
	case p == phaseReplay && step > 0:
		f.Detail = fmt.Sprintf("%s did not return within %v in the replay, though it returned in the first run (a hang)",
			formatOp(c.op(step-1)), k.timeout)
	case p == phaseReplay:
		f.Step, f.Detail = 0, fmt.Sprintf("building the sandbox a second time, for the replay, did not return within %v (a hang)", k.start)
	case p == phaseGrant:
		f.Step, f.Detail = 0, fmt.Sprintf("the sandbox's Grant did not return within %v (a hang)", k.timeout)
	default:
		f.Step, f.Detail = 0, fmt.Sprintf("closing the sandbox did not return within %v (a hang)", k.timeout)
	}
	// What the check found before the watchdog gave up stands (found
	// keeps nothing after): an escape at one op is not hidden by a hang at
	// a later one. A total finding among it (a crash, and then a Close
	// that hangs on what the crash left) is the check's total finding, and
	// the hang is none: a crash counts as it is, where a hang is judged
	// again on a fresh sandbox and may be dropped as a slow machine's.
	fs := ctl.foundSoFar()
	if !slices.ContainsFunc(fs, func(e Finding) bool { return e.Invariant == Total }) {
		fs = append(fs, f)
	}
	cov.Scenarios++
	for _, e := range fs { // a violation each, under the class of its op
		class := c.class(e.Step - 1)
		cov.Classes[class].Checked[e.Invariant]++
		cov.Classes[class].Violations[e.Invariant]++
	}
	feed.Judged(c, fs)
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

// serve runs jobs until the jobs end or a check of one is given up on.
func (w *checkWorker) serve(observe func(engine.StepReport)) {
	for j := range w.jobs {
		if !w.run(j, observe) {
			return // given up on: the Checker has moved on without us
		}
		w.done <- struct{}{}
	}
}

// run runs j's checks until its feed runs out (true) or the Checker gives
// up on one (false).
func (w *checkWorker) run(j job, observe func(engine.StepReport)) bool {
	for {
		c, f, ok := j.feed.Next()
		if !ok {
			return true
		}
		if f == nil {
			f = j.f
		}
		w.running = running{c, j.cov}
		w.ctl.reuse()
		w.ctl.at(phaseBuild, 0)
		seq := w.state.Load()>>2 + 1
		w.state.Store(seq<<2 | checkRunning)
		fs := checkNow(f, c, &w.scratch, &w.ctl, observe)
		if !w.state.CompareAndSwap(seq<<2|checkRunning, seq<<2) {
			return false
		}
		j.cov.drain(&w.scratch, c.classes())
		j.feed.Judged(c, fs)
	}
}
