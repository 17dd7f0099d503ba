package campaign

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// feed is one worker of a campaign, as the judge.Feed of its checks:
// Next draws the next check's scenario, Judged records its verdict. Both
// run on the Checker's worker goroutine, scenario after scenario, with no
// handoff between them (the Judged of a hung check runs on the campaign
// worker's goroutine, which watches for hangs; Next and Judged never run at
// once).
type feed struct {
	cfg     *Config
	ctx     context.Context // ends the campaign (a timed one, or interrupted)
	col     *collector
	next    *atomic.Int64 // the next check index to hand out, shared by the workers
	count   *workerCount
	skipped *atomic.Int64 // scenarios the adapter could express nothing of
	leftOut *whyCounts    // them, by why
	// lock guards what the feed counts (cov, dims, drawn and the checks
	// of count) against the campaign's reading it while a check is still
	// under way, once it gives up on the worker.
	lock    *countsLock
	scratch *oracle.Coverage // what the Checker counts a check into, moved into cov when it is judged
	cov     *oracle.Coverage
	dims    *dims.Counts // the points of the checked scenarios
	drawn   *dims.Counts // of the scenarios as generated, before an adapter

	// countInCheck counts the points from the check's own run (the
	// reference under test), into checked: added to dims once the check
	// is judged. A check given up on may go on counting into it from its
	// abandoned goroutine, so it is then left to that goroutine, and the
	// scenario counted on a run of its own.
	countInCheck bool
	checked      *dims.Counts
	// gen draws each scenario into the memory of the one before: the
	// collector keeps a copy of the few it keeps, and a check given up on
	// abandons that memory to its goroutine.
	gen *generators.Generator

	// tally reads what the worker's session counted (a real sandbox's,
	// door.Target.StartCounted), nil for a target that counts nothing;
	// then each check's sandboxes, of the worker's factory base, are
	// watched for their stricter ops, and stricter keeps a scenario of
	// each reason.
	tally    func() door.Tally
	base     core.Factory // the worker's
	watch    *door.Watch
	stricter *stricterScenarios

	started bool  // a check was handed out: the first is made whatever the context says
	i       int64 // the index of the check Next handed out last
}

// countsLock guards a worker's counts. A campaign that ends with a worker
// still in a check (a slow sandbox, interrupted) freezes them: the checks
// the worker finished stay counted, and nothing it judges after counts.
type countsLock struct {
	mu     sync.Mutex
	frozen bool
}

// hold locks l and reports whether its counts may still change; unlock
// it either way.
func (l *countsLock) hold() bool {
	l.mu.Lock()
	return !l.frozen
}

// freeze calls read, which reads l's counts, and keeps them as they are:
// no count changes after it.
func (l *countsLock) freeze(read func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.frozen = true
	read()
}

// Next draws the scenario of the next check index, until the campaign's
// bound, its context's end, or (with StopAtFirst) a check past the first
// finding. Scenarios the adapter can express nothing of are skipped, and
// finished at once.
func (f *feed) Next() (judge.Case, core.Factory, bool) {
	cfg := f.cfg
	for {
		if f.started && f.ctx.Err() != nil {
			return judge.Case{}, nil, false
		}
		f.started = true
		i := f.next.Add(1) - 1
		if cfg.Checks > 0 && i >= int64(cfg.Checks) || cfg.StopAtFirst && i > f.col.firstBad.Load() {
			return judge.Case{}, nil, false
		}
		if cfg.Target.RootBlock > 0 {
			f.gen.FixRoots(int((cfg.Seed + uint64(i)/uint64(cfg.Target.RootBlock)) % (1 << 20)))
		}
		sc := f.gen.Generate(generators.NewSource(cfg.Seed, uint64(i)))
		if cfg.Dimensions && cfg.Target.Adapt != nil {
			if f.lock.hold() {
				countDrawn(sc, f.drawn) // before the adapter narrows it
			}
			f.lock.mu.Unlock()
		}
		if cfg.Target.Adapt != nil {
			drawn := sc
			if sc = cfg.Target.Adapt(sc); sc == nil { // nothing of it the sandbox can express
				f.col.finish(int(i))
				f.skipped.Add(1)
				if cfg.Target.Why != nil {
					f.leftOut.add(cfg.Target.Why(drawn))
				}
				continue
			}
		}
		c, err := judge.NewCase(sc)
		if err != nil {
			panic(fmt.Sprintf("generator made an invalid grant at check %d: %v", i, err))
		}
		f.i = i
		if f.countInCheck {
			return c, f.checked.Counting(sc), true
		}
		if cfg.Dimensions {
			c.World = judge.PrepareWorld(sc.World) // once, for the check and the count
		}
		if f.tally != nil {
			f.watch.Reset()
			return c, f.watch.Factory(f.base), true
		}
		return c, nil, true
	}
}

// Judged records the verdict on the check Next handed out last: its ops
// and dimension points, and its findings, offered to the collector.
func (f *feed) Judged(c judge.Case, fs []oracle.Finding) {
	if hung(fs) { // its goroutine may still read the scenario
		f.gen.Abandon()
	}
	if f.col.over.Load() {
		return // given up on when the campaign stopped: not a check it made
	}
	sc := c.Scenario
	if !f.count1(c, fs) {
		return // frozen: the campaign took the counts without this check
	}
	if f.tally != nil && !hung(fs) { // a check given up on may still count
		f.noteStricter(sc, fs)
	}
	if len(fs) > 0 {
		var marks stepMarks
		if f.tally != nil {
			marks.kept = f.watch.Kept()
			marks.stricter, _ = f.watch.Marks()
		}
		f.col.offer(int(f.i), sc, fs, marks)
	}
	f.col.finish(int(f.i))
}

// count1 counts the check Next handed out last, judged: its coverage,
// moved from the scratch, its ops, its dimension points and the check
// itself, all at once under the lock, unless the counts are frozen.
func (f *feed) count1(c judge.Case, fs []oracle.Finding) bool {
	defer f.lock.mu.Unlock()
	if !f.lock.hold() {
		return false
	}
	f.count.ops.Add(f.scratch.Ops)
	moveCounts(f.cov, f.scratch, c.Scenario)
	switch sc := c.Scenario; {
	case f.countInCheck && !hung(fs):
		f.dims.Add(f.checked)
		f.checked.Reset()
	case f.countInCheck:
		f.checked = new(dims.Counts)
		dims.Count(sc, c.Grant, nil, f.dims)
	case f.cfg.Dimensions:
		dims.Count(sc, c.Grant, c.World.Template(), f.dims)
	}
	f.count.checks.Add(1)
	return true
}

// moveCounts adds to cov what a check of sc counted into scratch, and
// zeroes it there: the counts of the classes of sc's ops and of the
// unlabelled class, where a check counts (a Checker counts so), and its
// ops and scenarios.
func moveCounts(cov, scratch *oracle.Coverage, sc *scenario.Scenario) {
	move := func(cl attack.Class) {
		judge.AddClass(&cov.Classes[cl], &scratch.Classes[cl])
		scratch.Classes[cl] = oracle.ClassCoverage{}
	}
	var moved [attack.NumClasses]bool
	moved[attack.Unlabelled] = true
	move(attack.Unlabelled)
	for i := range sc.Steps {
		if cl := sc.Steps[i].Class; !moved[cl] {
			moved[cl] = true
			move(cl)
		}
	}
	cov.Ops += scratch.Ops
	cov.Scenarios += scratch.Scenarios
	scratch.Ops, scratch.Scenarios = 0, 0
}

// whyCounts counts the scenarios an adapter left out, by why, for the
// workers of a campaign.
type whyCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// quotedPath matches a world path a reason quotes. With each such path
// written "…" and each number N (digits), a reason is counted as one,
// whatever it names.
var quotedPath = regexp.MustCompile(`"/(?:[^"\\]|\\.)*"`)

// add counts one scenario left out for why ("" counts nothing).
func (w *whyCounts) add(why string) {
	if why == "" {
		return
	}
	why = digits.ReplaceAllString(quotedPath.ReplaceAllString(why, `"…"`), "N")
	w.mu.Lock()
	w.n[why]++
	w.mu.Unlock()
}
