package oracle

import (
	"errors"
	"fmt"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// watchedRun watches one sandbox under test over a fresh world, op by op.
// After every op it reads the world's journal and state — never the
// sandbox's account of itself — and judges the per-step invariants. It is
// not safe for concurrent use.
type watchedRun struct {
	cov     *Coverage
	grant   core.Grant // the scenario's grant: what confinement judges by
	budgets core.Budgets
	sb      core.Sandbox
	// replayed is the sandbox of the replay, closed with sb at the end.
	replayed core.Sandbox
	usage    core.Usage // the sandbox's usage after the latest step
	world    *refworld.World
	spare    *refworld.World // the replay's world
	ctl      *control        // the Checker's hold on the check; nil for Watch and checkInline
	model    *model
	snap     grantSnapshot
	fp       uint64 // the world's fingerprint after the latest step

	step      int
	dead      bool      // the sandbox panicked: nothing it says is trusted
	inSandbox bool      // the sandbox is running: a panic now is the sandbox's
	halt      core.Kind // first hard kind seen, or Invalid
	haltStep  int       // the step that returned it
	haltAt    haltState
	output    int64       // bytes returned in data so far
	capBase   int64       // the least per-op cap on what the sandbox sends its world (opWorldCap)
	trace     []traceStep // kept for the replay check, when asked
	reported  [numInvariants]bool
	violated  []ID // by the latest step, reported or not
	// usageParted is set once the sandbox's usage differs from the
	// model's after a step: from then on it differs after every step.
	usageParted bool
	findings    []Finding
	// built is the journal's length once the sandbox was built: the
	// entries before it are the sandbox's own requests at open (an MCP
	// server resolving its roots), judged by checkBuild and compared with
	// the replay's build, never counted as step 1's.
	built int
	// end is the journal's length once the last step was judged (built
	// before the first): where the next step's entries begin.
	end int
}

// haltState is what must stand still after the first hard result.
type haltState struct {
	usage   core.Usage
	journal int
	clock   int64
}

// traceStep is what replay-deterministic compares: a step's result, the
// usage after it, and where its journal entries end.
type traceStep struct {
	res     core.Result
	usage   core.Usage
	journal int
}

// stepObs is what one op did, as observed.
type stepObs struct {
	op       *core.Op
	class    attack.Class
	res      core.Result
	after    core.Usage
	entries  []refworld.Entry // journal entries the op added
	fpBefore uint64
	fpAfter  uint64
	clock1   int64
	journal  int // journal length after the op
}

// watchWorld builds the sandbox under test with f over a fresh world from
// ws and starts watching it, counting into cov (which may be nil). An
// error or a panic from f is a total finding at step 0 and leaves the run
// dead. ws must not change while the run is in use. Close the run when
// done with it.
func watchWorld(f core.Factory, g core.Grant, ws scenario.WorldSpec, cov *Coverage) *watchedRun {
	return new(checkState).watch(f, g, g.Spec(), prepareWorld(ws), cov, nil)
}

// checkState is the memory a check works in: the watched run and the
// sandbox's two worlds. A judged check hands it back for the next (a
// campaign judges scenario after scenario, a fuzz target input after
// input); a check given up on keeps it, since its hung sandbox's goroutine
// may still be in the middle of a step. The model is built afresh for
// each check: it keeps nothing from one to the next.
type checkState struct {
	run    watchedRun
	worlds [2]refworld.World // the watched run's and the replay's
	// prepared is the scenario's world prepared, when the check was not
	// handed one: its maps are refilled check after check.
	prepared preparedWorld
}

// prepare prepares ws in st's memory (prepareWorld).
func (st *checkState) prepare(ws scenario.WorldSpec) *preparedWorld {
	if st.prepared.core == nil {
		st.prepared.core = new(refworld.Template)
	}
	st.prepared.core.Prepare(ws)
	st.prepared.model = resetModelBase(st.prepared.model, ws)
	return &st.prepared
}

var checkStates = sync.Pool{New: func() any { return new(checkState) }}

// recycle hands st back once its check is judged and nothing reads its run
// again. The findings were handed out: they are not kept.
//
// Nothing of it is emptied here: the next check renews each core world
// from its own template before any read (watch the run's, replay the
// replay's), and watch resets the run. Until then st holds this scenario's
// journals, paths, trace and written files, one scenario's worth per
// pooled state; emptying them here as well would only let go of them a
// check earlier, at a cost on every check.
func (st *checkState) recycle() { checkStates.Put(st) }

// Close closes the sandbox under test when it is an io.Closer.
func (r *watchedRun) Close() error {
	if r.sb == nil {
		return nil
	}
	return closeSandbox(r.sb)
}

// watch is watchWorld over a prepared world, under ctl, in st's memory: the
// sandbox runs over a world from pw's template, the model over its own
// world from pw's spec, under the grant gs describes (g, as a spec; its
// lists are read, not copied).
func (st *checkState) watch(f core.Factory, g core.Grant, gs core.GrantSpec, pw *preparedWorld, cov *Coverage, ctl *control) *watchedRun {
	if cov == nil {
		cov = new(Coverage) // counted, then dropped
	}
	pw.core.Renew(&st.worlds[0])
	r := &st.run
	*r = watchedRun{cov: cov, grant: g, budgets: g.Budgets(), world: &st.worlds[0], spare: &st.worlds[1], model: newModel(gs, newModelWorld(pw.model)), trace: r.trace[:0], violated: r.violated[:0], ctl: ctl,
		capBase: worldCapBase(st.worlds[0].Spec())}
	sb, err := build(f, g, r.world)
	if err != nil {
		r.dead = true
		// A sandbox that did not start in time (a server's handshake, a
		// proxy's listen) may be a busy machine's doing: a hang, which a
		// campaign judges again before it counts.
		r.record(Total, attack.Unlabelled, err.Error(), isTimeout(err))
		return r
	}
	ctl.built(sb)
	r.sb = sb
	if !ctl.halted() { // given up on while it was built: the world is the sandbox's own
		r.world.EndOp() // what the build left open belongs to the build (an in-memory network's connection)
	}
	r.built = r.world.JournalLen()
	r.end = r.built
	if !ctl.halted() { // given up on while it was built: the world is the sandbox's own
		r.checkBuild()
	}
	if r.snap, err = sandboxCall(func() grantSnapshot { return snapshotGrant(sb) }); err != nil {
		r.dead = true
		r.violate(Total, attack.Unlabelled, "reading the sandbox's grant "+err.Error())
		return r
	}
	r.fp = r.world.Fingerprint()
	return r
}

// isTimeout reports whether err says it is a timeout (a Timeout method
// that returns true, as the standard library's timeouts and the doors'
// have).
func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// build calls f, turning its error, a nil sandbox or a panic into the
// words of a total finding.
func build(f core.Factory, g core.Grant, w core.World) (sb core.Sandbox, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("building the sandbox panicked: %v", p)
		}
	}()
	sb, err = f(g, w)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the sandbox could not be built: %w", err)
	case sb == nil:
		return nil, fmt.Errorf("the factory returned no sandbox and no error")
	}
	return sb, nil
}

// Step runs op on the sandbox and judges every per-step invariant; class is
// the op's attack class, for coverage. It returns the sandbox's result. On
// a dead run it does nothing and returns the zero Result. Step does not
// recover a panic of the sandbox (a deferred recover on every op costs the
// hot path); Check and checkInline do, turning it into a total finding.
func (r *watchedRun) Step(op core.Op, class attack.Class) core.Result {
	if r.dead {
		return core.Result{}
	}
	r.step++
	r.violated = r.violated[:0]
	// The harness runs nothing of the world's between steps, so the
	// fingerprint and the journal after the last step are this one's
	// start: what a sandbox's stray goroutine did between steps is judged
	// at this step, not left to no step.
	s := &stepObs{op: &op, class: class, fpBefore: r.fp}
	j0 := r.end
	r.cov.Ops++
	r.cov.Classes[class].Checked[Total]++
	r.inSandbox = true
	r.world.BeginOp(op, opWorldCap(r.capBase, op))
	res := r.sb.Run(op) // a panic here is caught by Check, which owns the run
	if r.ctl.halted() {
		r.inSandbox = false
		return res // given up on while the op ran: the sandbox's world is its own from now on
	}
	r.world.EndOp()
	if err := r.world.OpOverCap(); err != nil {
		r.inSandbox = false
		r.dead = true // the world kept nothing more of the op: nothing after it can be judged
		r.violate(Total, class, formatOp(op)+" "+err.Error())
		return res
	}
	if res.Kind >= core.NumKinds {
		// No verdict at all (a door turns such an answer into a Failure,
		// SPEC §12): the op yielded no result, and nothing after it can
		// be judged.
		r.inSandbox = false
		r.dead = true
		r.violate(Total, class, fmt.Sprintf("%s returned kind %d, which SPEC §2 does not list", formatOp(op), res.Kind))
		return res
	}
	s.after = r.sb.Usage()
	r.inSandbox = false
	s.res = res
	r.usage = s.after
	s.fpAfter = r.world.Fingerprint()
	r.fp = s.fpAfter
	s.clock1 = r.world.ClockReads()
	s.entries = r.world.Journal()[j0:]
	s.journal = j0 + len(s.entries) // one read, so the step's entries and where the next step's begin agree
	r.end = s.journal
	want, why := r.model.predict(op)
	r.cov.Classes[class].Kinds[res.Kind]++

	r.checkNoEffect(s, want)
	r.checkConfinement(s)
	r.checkEgress(s)
	r.checkLatch(s)
	r.checkCharge(s)
	r.checkOutput(s)
	r.checkVerdict(s, want, why)
	if r.trace != nil {
		r.trace = append(r.trace, traceStep{res, s.after, s.journal})
	}
	return res
}

// violate records a violation; only the first of each invariant in a run
// becomes a Finding, but every one is counted.
func (r *watchedRun) violate(id ID, class attack.Class, detail string) {
	r.record(id, class, detail, false)
}

// record is violate, its finding marked a hang when hang is set.
func (r *watchedRun) record(id ID, class attack.Class, detail string, hang bool) {
	r.cov.Classes[class].Violations[id]++
	r.violated = append(r.violated, id)
	if r.reported[id] {
		return
	}
	r.reported[id] = true
	r.found(Finding{Invariant: id, Step: r.step, Detail: clipDetail(detail), Hang: hang})
}

// found adds f to the run's findings, and tells the Checker watching the
// run (if any): should a later op hang, the check is given up on and its
// findings are the Checker's to hand out, what it found before included.
func (r *watchedRun) found(f Finding) {
	r.findings = append(r.findings, f)
	r.ctl.found(f)
}

// Findings returns the findings so far, in the order they were found.
func (r *watchedRun) Findings() []Finding { return r.findings }

// Steps returns how many ops the run has judged.
func (r *watchedRun) Steps() int { return r.step }

// World returns the world the sandbox runs over, for printing its journal.
func (r *watchedRun) World() *refworld.World { return r.world }

// Usage returns the sandbox's usage counters after the latest step, or
// zero on a dead run.
func (r *watchedRun) Usage() core.Usage {
	if r.dead {
		return core.Usage{}
	}
	return r.usage
}

// panicWords says what a sandbox's panic was: the words of a
// door.Failure (a sandbox that could not answer: its process died or broke
// the protocol), or "panicked: ..." for any other panic.
func panicWords(p any) string {
	if f, ok := p.(*door.Failure); ok {
		return "failed: " + f.Error()
	}
	return fmt.Sprintf("panicked: %v", p)
}

// sandboxCall calls fn, which calls into the sandbox under test, and turns
// a panic into an error that says so: a sandbox's bug, not the harness's.
func sandboxCall[T any](fn func() T) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New(panicWords(p))
		}
	}()
	return fn(), nil
}

// Dead reports whether the sandbox panicked, after which the run judges
// nothing more.
func (r *watchedRun) Dead() bool { return r.dead }
