package oracle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// Case is one scenario to judge: a grant, a world, and ops with their attack
// classes (Classes may be nil or shorter than Ops: missing labels are
// Unlabelled).
type Case struct {
	Grant core.Grant
	World core.WorldSpec
	// Template, when set, is World already prepared: core.PrepareWorld(World)
	// or a template equal to it. Callers that judge many scenarios over one
	// world (the fuzz targets' arenas) prepare it once; when nil, the check
	// prepares World itself, once for its two worlds (the watched run and
	// the replay; the model builds its own from World, which must be set).
	Template *core.WorldTemplate
	Ops      []core.Op
	Classes  []attack.Class
}

// template returns the case's world, prepared.
func (c *Case) template() *core.WorldTemplate {
	if c.Template != nil {
		return c.Template
	}
	return core.PrepareWorld(c.World)
}

func (c *Case) class(i int) attack.Class {
	if i < len(c.Classes) {
		return c.Classes[i]
	}
	return attack.Unlabelled
}

// DefaultTimeout bounds one Check: a scenario still running after it is a
// total finding (a hang).
const DefaultTimeout = 10 * time.Second

// Options tune Check. The zero Options use DefaultTimeout and observe
// nothing.
type Options struct {
	// Timeout bounds the whole scenario; 0 means DefaultTimeout.
	Timeout time.Duration
	// Observe, when set, is called after every op of the watched run, on
	// Check's worker goroutine, before the next op runs.
	Observe func(StepReport)
}

// StepReport is what one op did, as the oracle observed it. Entries alias
// the world's journal: they stay valid, but must not be modified.
type StepReport struct {
	Step    int
	Op      core.Op
	Result  core.Result
	Usage   core.Usage
	Entries []core.Entry
}

// Check judges every invariant on one scenario: it watches the sandbox f
// builds run every op (after a halt too, so the latch is tested), replays
// the scenario on a fresh world and compares traces, and scribbles on the
// grant the sandbox hands out. Counts go into cov. A scenario that does not
// finish within opt.Timeout is a total finding (a hang). Check is a
// one-shot Checker; campaigns keep a Checker per worker.
func Check(f core.Factory, c Case, cov *Coverage, opt Options) []Finding {
	k := NewChecker(f, opt)
	defer k.Close()
	return k.Check(c, cov)
}

// Checker judges scenarios one at a time on a goroutine of its own, so that
// a sandbox that never returns becomes a total finding instead of a hung
// harness: the Checker abandons that goroutine (Go cannot stop it) and
// starts a new one for the next scenario. A Checker is not safe for
// concurrent use; Close it when done.
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
	jobs     chan Case
	done     chan []Finding
	scratch  Coverage
	progress progressCounter
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
		k.w = &checkWorker{jobs: make(chan Case), done: make(chan []Finding)}
		go k.w.serve(k.f, k.opt.Observe)
	}
	w := k.w
	w.jobs <- c
	// The machine's clock bounds only how long we wait for a hang; it never
	// feeds a verdict or an output.
	k.timer.Reset(k.timeout)
	select {
	case fs := <-w.done:
		k.timer.Stop()
		cov.Add(&w.scratch)
		w.scratch = Coverage{}
		return fs
	case <-k.timer.C:
		k.w = nil // abandoned: it may never return
		step := w.progress.load()
		what := "building the sandbox"
		if step > 0 {
			what = FormatOp(c.Ops[step-1])
		}
		return []Finding{{Invariant: Total, Step: step, Detail: fmt.Sprintf(
			"%s did not return within %v (a hang)", what, k.timeout)}}
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
	for c := range w.jobs {
		w.progress.store(0)
		w.done <- checkNow(f, c, &w.scratch, &w.progress, observe)
	}
}

// CheckInline is Check on the calling goroutine, with no hang bound: for
// callers that bound time themselves, and for benchmarks.
func CheckInline(f core.Factory, c Case, cov *Coverage) []Finding {
	return checkNow(f, c, cov, nil, nil)
}

func checkNow(f core.Factory, c Case, cov *Coverage, progress *progressCounter, observe func(StepReport)) []Finding {
	t := c.template()
	r := watch(f, c.Grant, c.World, t, cov)
	// The reference journals at most two calls an op; runs often halt
	// early, so long scenarios get room for their first 32 ops only.
	r.world.Reserve(2 * min(len(c.Ops), 32))
	r.trace = make([]traceStep, 0, len(c.Ops))
	var classes classSet
	for i := range c.Ops {
		classes[c.class(i)] = true
	}
	r.steps(c, progress, observe)
	if !r.dead {
		r.checkReplay(f, c, t, &classes)
		r.checkGrant(classes)
	}
	cov.Scenarios++
	return r.findings
}

// steps runs every op under watch; a panic of the sandbox becomes a total
// finding at the step that panicked, and the run is dead from then on.
func (r *Run) steps(c Case, progress *progressCounter, observe func(StepReport)) {
	defer func() {
		if p := recover(); p != nil {
			if !r.inSandbox {
				panic(p) // the harness's own bug: do not blame the sandbox
			}
			r.dead = true
			r.violate(Total, c.class(r.step-1), fmt.Sprintf("%s panicked: %v", FormatOp(c.Ops[r.step-1]), p))
		}
	}()
	for i, op := range c.Ops {
		progress.store(i + 1)
		j := r.world.JournalLen()
		res := r.Step(op, c.class(i))
		if observe != nil && !r.dead {
			observe(StepReport{Step: i + 1, Op: op, Result: res, Usage: r.sb.Usage(), Entries: r.world.Journal()[j:]})
		}
	}
}

// checkReplay is replay-deterministic: run the scenario again on a fresh
// world and compare each step with the first run: result, usage, and the
// journal entries it added.
func (r *Run) checkReplay(f core.Factory, c Case, t *core.WorldTemplate, classes *classSet) {
	for i := range c.Ops {
		r.cov.Checked[ReplayDeterministic][c.class(i)]++
	}
	if detail := r.replay(f, c, t); detail != "" {
		r.wholeViolation(ReplayDeterministic, *classes, detail)
	}
}

// replay returns "" when a second run matches the first, else where and how
// they differ.
func (r *Run) replay(f core.Factory, c Case, t *core.WorldTemplate) (detail string) {
	defer func() {
		if p := recover(); p != nil {
			detail = fmt.Sprintf("the replay panicked where the first run did not: %v", p)
		}
	}()
	w := t.New()
	w.Reserve(r.world.JournalLen())
	sb := f(c.Grant, w)
	first := r.world.Journal()
	prev := 0
	for i, t := range r.trace {
		j := w.JournalLen()
		res := sb.Run(c.Ops[i])
		u := sb.Usage()
		was, now := first[prev:t.journal], w.Journal()[j:]
		prev = t.journal
		if res != t.res || u != t.usage || !slices.Equal(was, now) {
			return fmt.Sprintf("two runs of the same scenario differ at step %d (%s): first %s, then %s",
				i+1, FormatOp(c.Ops[i]), describeStep(t.res, t.usage, was), describeStep(res, u, now))
		}
	}
	return ""
}

func describeStep(res core.Result, u core.Usage, entries []core.Entry) string {
	s := fmt.Sprintf("%s with usage ops=%d wall=%d output=%d", describeResult(res), u.Ops, u.Wall, u.Output)
	if len(entries) == 0 {
		return s + " and no journal entry"
	}
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = e.String()
	}
	return s + " and journal [" + strings.Join(parts, "; ") + "]"
}
