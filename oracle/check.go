package oracle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Options tune Check and a Checker. The zero Options use DefaultTimeout.
type Options struct {
	// Timeout is how long the check waits for one op before it calls the
	// sandbox hung: a total finding on the op that did not return. 0 means
	// DefaultTimeout. A scenario of many quick ops is never a hang, however
	// long it takes as a whole.
	Timeout time.Duration
	// StartTimeout is how long the factory may take to build a sandbox,
	// its grant given to it included (a sandbox in another process is sent
	// its grant as it starts); 0 means the larger of Timeout and 10s. A
	// sandbox in another process may take longer to start than an op to
	// run, and lowering Timeout to minimize a hang must not make a slow
	// start look like one.
	StartTimeout time.Duration
}

// Check judges every invariant on one scenario: it watches the sandbox f
// builds run every op (after a halt too, so the latch is tested), replays
// the scenario on a fresh world and compares traces, and scribbles on the
// grant the sandbox hands out. Counts go into cov, which may be nil. An op
// that does not return within opt.Timeout is a total finding (a hang), and
// the hung sandbox is closed. The error is for a scenario that cannot be
// judged at all: an invalid grant (it unwraps to core.ErrInvalidGrant), or
// a step of no known attack class (ErrUnknownClass).
// Check is a one-shot Checker; campaigns keep a Checker per worker.
func Check(f core.Factory, sc *scenario.Scenario, cov *Coverage, opt Options) ([]Finding, error) {
	k := NewChecker(f, opt)
	defer k.Close()
	return k.Check(sc, cov)
}

// checkInline is Check on the calling goroutine, with no hang bound: for
// callers that bound time themselves (the fuzz targets: go test -fuzz
// reports a hung input), and for benchmarks.
func checkInline(f core.Factory, c checkCase, cov *Coverage) []Finding {
	return checkNow(f, c, cov, nil, nil)
}

// checkNow judges c in memory an earlier check handed back, under ctl
// (nil: inline), calling observe after every op of the watched run.
func checkNow(f core.Factory, c checkCase, cov *Coverage, ctl *control, observe func(engine.StepReport)) []Finding {
	return checkIn(checkStates.Get().(*checkState), f, c, cov, ctl, observe)
}

// checkIn is checkNow in st's memory, which it hands back for the next
// check once this one is judged.
func checkIn(st *checkState, f core.Factory, c checkCase, cov *Coverage, ctl *control, observe func(engine.StepReport)) []Finding {
	pw := c.World
	if pw == nil {
		pw = st.prepare(c.Scenario.World)
	}
	r := st.watch(f, c.Grant, c.Scenario.Grant, pw, cov, ctl)
	judged := false
	defer func() {
		r.closeAll(ctl)
		if judged { // nothing reads the run, its worlds or the journal again
			st.recycle()
		}
	}()
	steps := c.steps()
	// The reference journals at most two calls an op; runs often halt
	// early, so long scenarios get room for their first 32 ops only.
	r.world.Reserve(2 * min(len(steps), 32))
	r.trace = slices.Grow(r.trace, len(steps))
	var classes classSet
	for i := range steps {
		classes[steps[i].Class] = true
	}
	r.steps(c, ctl, observe)
	if !r.dead && !ctl.halted() {
		r.checkReplay(f, c, pw.core, &classes, ctl)
		ctl.at(phaseGrant, 0)
		if _, err := sandboxCall(func() bool { r.checkGrant(classes); return true }); err != nil {
			r.wholeViolation(Total, classes, "the sandbox's Grant or its view "+err.Error())
		}
	}
	// A check given up on keeps all of it: the hung sandbox may still be
	// writing to the world.
	judged = !ctl.halted()
	cov.Scenarios++
	return r.findings
}

// steps runs every op under watch; a panic of the sandbox becomes a total
// finding at the step that panicked, and the run is dead from then on.
func (r *watchedRun) steps(c checkCase, ctl *control, observe func(engine.StepReport)) {
	defer func() {
		if p := recover(); p != nil {
			if !r.inSandbox {
				panic(p) // the harness's own bug: do not blame the sandbox
			}
			r.dead = true
			why := panicWords(p)
			if err := r.world.OpOverCap(); err != nil {
				why = err.Error() // what broke the sandbox's process: its flood
			}
			r.violate(Total, c.class(r.step-1), formatOp(c.op(r.step-1))+" "+why)
		}
	}()
	for i := range c.steps() {
		if ctl.halted() {
			return
		}
		ctl.at(phaseRun, i+1)
		op := c.op(i)
		j := r.end
		res := r.Step(op, c.class(i))
		if observe != nil && !r.dead {
			ctl.observe(observe, engine.StepReport{Step: i + 1, Op: op, Result: res, Usage: r.usage, Entries: r.world.Journal()[j:], Violated: idNames(r.violated)})
		}
	}
}

// idNames names each invariant of ids once, in their order; nil for none.
func idNames(ids []ID) []string {
	var out []string
	for _, id := range ids {
		if name := id.String(); !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// checkReplay is replay-deterministic: run the scenario again on a fresh
// world and compare each step with the first run: result, usage, and the
// journal entries it added.
func (r *watchedRun) checkReplay(f core.Factory, c checkCase, t *refworld.Template, classes *classSet, ctl *control) {
	for i := range c.steps() {
		r.cov.Classes[c.class(i)].Checked[ReplayDeterministic]++
	}
	if detail := r.replay(f, c, t, ctl); detail != "" {
		r.wholeViolation(ReplayDeterministic, *classes, detail)
	}
}

// replay returns "" when a second run matches the first, else where and how
// they differ. A panic of the replay's sandbox is no difference but a
// total finding on the op that panicked, as a hang there is: the op
// yielded no result.
func (r *watchedRun) replay(f core.Factory, c checkCase, t *refworld.Template, ctl *control) (detail string) {
	w := r.spare
	step := 0 // the replay's op under way; 0 while it builds
	defer func() {
		if p := recover(); p != nil {
			why := panicWords(p)
			if err := w.OpOverCap(); step > 0 && err != nil {
				why = err.Error() // what broke the sandbox's process: its flood
			}
			r.replayCrashed(c, step, why, false)
			detail = ""
		}
	}()
	ctl.at(phaseReplay, 0)
	t.Renew(w)
	w.Reserve(r.world.JournalLen())
	sb, err := f(c.Grant, w)
	if err != nil && isTimeout(err) {
		// It did not start in time for the replay (a busy machine's
		// doing, maybe): a hang before any op, as the first build's.
		r.replayCrashed(c, 0, fmt.Sprintf("did not start in time: %v", err), true)
		return ""
	}
	if err != nil {
		return fmt.Sprintf("the sandbox could not be built a second time: %v", err)
	}
	if sb == nil {
		return "the factory returned no sandbox and no error the second time"
	}
	ctl.built(sb)
	r.replayed = sb
	if !ctl.halted() {
		w.EndOp() // as the first build's, what the build left open is the build's
	}
	// What each build asked of its world belongs to the open, not to step
	// 1: the two builds are compared with each other, and each run's steps
	// from where its build ended.
	first := r.world.Journal()
	if was, now := first[:r.built], w.Journal(); !slices.Equal(was, now) {
		return fmt.Sprintf("the two builds differ: the first %s, the second %s", journalWords(was), journalWords(now))
	}
	prev, j := r.built, w.JournalLen()
	for i, t := range r.trace {
		if ctl.halted() {
			return ""
		}
		step = i + 1
		ctl.at(phaseReplay, step)
		w.BeginOp(c.op(i), opWorldCap(r.capBase, c.op(i)))
		res := sb.Run(c.op(i))
		w.EndOp()
		if err := w.OpOverCap(); err != nil {
			return fmt.Sprintf("in the replay, step %d: %s %v", i+1, formatOp(c.op(i)), err)
		}
		u := sb.Usage()
		was, now := first[prev:t.journal], w.Journal()[j:]
		prev, j = t.journal, j+len(now) // as the first run, each step from where the last ended
		if res != t.res || u != t.usage || !slices.Equal(was, now) {
			first, then, where := describeStep(t.res, t.usage, was), describeStep(res, u, now), ""
			if first == then { // the data alone differ, in bytes of one length: quote them
				first, then = describeData(t.res)+" and "+journalWords(was), describeData(res)+" and "+journalWords(now)
				where = firstDifference(res.Data, t.res.Data, "the first run")
			}
			return fmt.Sprintf("two runs of the same scenario differ at step %d (%s): first %s, then %s%s",
				i+1, formatOp(c.op(i)), first, then, where)
		}
	}
	return ""
}

// replayCrashed is the total finding on the op of the replay at step
// that panicked, though it returned in the first run (step 0: the
// replay's build), counted under the op's class; hang says the build
// timed out instead (a hang, which a campaign confirms).
func (r *watchedRun) replayCrashed(c checkCase, step int, why string, hang bool) {
	detail := "building the sandbox a second time, for the replay, " + why
	if step > 0 {
		detail = fmt.Sprintf("%s %s in the replay, though it returned in the first run", formatOp(c.op(step-1)), why)
	}
	r.cov.Classes[c.class(step-1)].Violations[Total]++
	if !r.reported[Total] {
		r.reported[Total] = true
		r.found(Finding{Invariant: Total, Step: step, Detail: clipDetail(detail), Hang: hang})
	}
}

// closeAll closes the sandboxes the check built. Under a Checker, the
// control closes them, each once; a check given up on is left to the
// Checker.
func (r *watchedRun) closeAll(ctl *control) {
	if ctl != nil {
		if !ctl.halted() {
			ctl.at(phaseClose, 0)
			ctl.closeAll()
		}
		return
	}
	for _, sb := range []core.Sandbox{r.sb, r.replayed} {
		if sb != nil {
			closeSandbox(sb) // an error closing is not a verdict on the scenario
		}
	}
}

// maxListed is the most journal entries a finding lists.
const maxListed = 8

func describeStep(res core.Result, u core.Usage, entries []refworld.Entry) string {
	return fmt.Sprintf("%s with usage ops=%d wall=%d output=%d and %s", describeResult(res), u.Ops, u.Wall, u.Output, journalWords(entries))
}

// journalWords lists entries, at most maxListed of them: "journal [read
// /a; …]", or "no journal entry".
func journalWords(entries []refworld.Entry) string {
	if len(entries) == 0 {
		return "no journal entry"
	}
	parts := make([]string, 0, min(len(entries), maxListed)+1)
	for _, e := range entries[:min(len(entries), maxListed)] {
		parts = append(parts, entryText(e))
	}
	if len(entries) > maxListed {
		parts = append(parts, fmt.Sprintf("… and %d more", len(entries)-maxListed))
	}
	return "journal [" + strings.Join(parts, "; ") + "]"
}
