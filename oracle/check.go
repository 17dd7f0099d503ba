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
	Grant   core.Grant
	World   core.WorldSpec
	Ops     []core.Op
	Classes []attack.Class
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
// finish within timeout (DefaultTimeout when 0) is a total finding; its
// goroutine is abandoned, and its counts are dropped.
func Check(f core.Factory, c Case, cov *Coverage, opt Options) []Finding {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	type outcome struct {
		findings []Finding
		cov      *Coverage
	}
	done := make(chan outcome, 1)
	var progress progressCounter
	go func() {
		local := new(Coverage)
		done <- outcome{checkNow(f, c, local, &progress, opt.Observe), local}
	}()
	// The machine's clock bounds only how long we wait for a hang; it never
	// feeds a verdict or an output.
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case o := <-done:
		cov.Add(o.cov)
		return o.findings
	case <-timer.C:
		step := progress.load()
		what := "building the sandbox"
		if step > 0 {
			what = FormatOp(c.Ops[step-1])
		}
		return []Finding{{Invariant: Total, Step: step, Detail: fmt.Sprintf(
			"%s did not return within %v (a hang)", what, timeout)}}
	}
}

// CheckInline is Check on the calling goroutine, with no hang bound: for
// callers that bound time themselves, and for benchmarks.
func CheckInline(f core.Factory, c Case, cov *Coverage) []Finding {
	return checkNow(f, c, cov, nil, nil)
}

func checkNow(f core.Factory, c Case, cov *Coverage, progress *progressCounter, observe func(StepReport)) []Finding {
	r := Watch(f, c.Grant, c.World, cov)
	r.trace = make([]traceStep, 0, len(c.Ops))
	var classes classSet
	for i, op := range c.Ops {
		progress.store(i + 1)
		classes[c.class(i)] = true
		j := r.world.JournalLen()
		res := r.Step(op, c.class(i))
		if observe != nil && !r.dead {
			observe(StepReport{Step: i + 1, Op: op, Result: res, Usage: r.sb.Usage(), Entries: r.world.Journal()[j:]})
		}
	}
	if !r.dead {
		r.checkReplay(f, c, &classes)
		r.checkGrant(classes)
	}
	cov.Scenarios++
	return r.findings
}

// checkReplay is replay-deterministic: run the scenario again on a fresh
// world and compare each step with the first run: result, usage, and the
// journal entries it added.
func (r *Run) checkReplay(f core.Factory, c Case, classes *classSet) {
	for i := range c.Ops {
		r.cov.Checked[ReplayDeterministic][c.class(i)]++
	}
	if detail := r.replay(f, c); detail != "" {
		r.wholeViolation(ReplayDeterministic, *classes, detail)
	}
}

// replay returns "" when a second run matches the first, else where and how
// they differ.
func (r *Run) replay(f core.Factory, c Case) (detail string) {
	defer func() {
		if p := recover(); p != nil {
			detail = fmt.Sprintf("the replay panicked where the first run did not: %v", p)
		}
	}()
	w := core.NewWorld(c.World)
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
