// Package campaign runs sbxfuzz campaigns: generate hostile scenarios from a
// seed, judge each with the oracle on the sandbox under test, and minimize
// every finding into a small scenario. Check i of a campaign draws from the
// seeded source (seed, i), so results depend on the seed and the number of
// checks, never on the number of workers or on timing.
package campaign

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// DefaultChecks is the number of checks of a campaign that sets neither
// Checks nor Duration on the command line (run, report, and mutants per
// mutant). It is also the sample size at which the generators are held to
// account: a report calls a point or cell no check reached a gap, the
// generators' fault, only when its campaign made at least this many checks
// (reports.Report.Full); in a shorter one it was merely not hit.
const DefaultChecks = reports.FullChecks

// Config describes a campaign. Checks bounds it by count, Duration by time
// (the first reached ends it; at least one must be set). The clock is read
// only to stop a timed campaign, to bound hangs and minimization, and to
// measure throughput; it never feeds a scenario or a verdict.
type Config struct {
	Seed     uint64
	Checks   int           // scenarios to check; 0 means no bound by count
	Duration time.Duration // 0 means no bound by time; at least one check is made
	Workers  int           // 0 means runtime.NumCPU()
	// Target is the sandbox under test; the zero Target is the reference.
	// Each worker starts a session of its own, and one more session
	// minimizes the findings.
	Target sut.Target
	// Timeout is how long one op may take before it is a hang (a total
	// finding); 0 means oracle.DefaultTimeout.
	Timeout time.Duration
	// StartTimeout is how long building a sandbox may take (starting a
	// process or a server, its handshake included) before it is a hang;
	// 0 means the oracle's default (oracle.Options.StartTimeout).
	StartTimeout time.Duration
	// Out is the directory each finding is written to as soon as it is
	// minimized, so that a campaign killed later keeps it; "" keeps them
	// in the Result only.
	Out string
	// StopAtFirst ends the campaign at the first finding (by check index).
	StopAtFirst bool
	// PerInvariant is how many raw findings of each invariant are
	// minimized and written, the earliest, spread over their causes
	// (MaxPerClass, MaxPerCause); 0 means MaxPerInvariant.
	PerInvariant int
	// Program is the words that run the command line the findings'
	// reproduce lines name (finding.Pipeline.Program); "" means "sbxfuzz".
	Program string
	// Dimensions counts the SPEC dimension points each checked scenario
	// hits (package dims) into Result.Dimensions: on the reference, from
	// the run the check watches (dims.Counts.Counting); on any other
	// sandbox, a second, reference run of every scenario. Campaigns that
	// only hunt (the mutants) leave it off.
	Dimensions bool
	// Progress, when set, is called about once a second from a single
	// goroutine with the counts so far.
	Progress func(Progress)
	// Written, when set, is called with each finding as the campaign
	// keeps it (its file written, when Out is set), in the order of
	// Result.Findings, from a single goroutine: what a log shows while the
	// campaign goes on. It must not block.
	Written func(Finding)
	// Abort, when closed, ends the campaign at once (a second signal):
	// what was found and is not minimized yet is written as it was found,
	// and Run returns without waiting for the checks or the minimization
	// under way, nor more than a moment for the sessions to end.
	Abort <-chan struct{}
}

// Progress is a snapshot of a running campaign.
type Progress struct {
	Checks   int64
	Ops      uint64
	Findings int64 // minimized (and written) so far
	Queued   int64 // kept and not written yet: the one being minimized, and those waiting
	Raw      int64 // raw findings, kept or not
	Elapsed  time.Duration
	// Checked is the time the checks took, once they are over (Elapsed
	// until then): what is left is minimizing the findings.
	Checked    time.Duration
	ChecksOver bool
}

// Finding is one violation, minimized by the finding pipeline, the check
// that found it, and the file it was written to.
type Finding struct {
	Check int    // the index of the check that found it
	Path  string // where it was written; "" when Config.Out is ""
	// Unminimized is set on a finding written as it was found: the
	// campaign stopped before its minimization could try anything. Its
	// file's header says so.
	Unminimized bool
	// Unconfirmed is set on an op's timeout on a sandbox whose timeouts
	// are judged again on a fresh one (door.Target.ConfirmHangs), written
	// because the campaign stopped before that judgement: on a busy
	// machine a slow server misses --timeout, so it does not count for
	// the exit status. Its file's header says so.
	Unconfirmed bool
	*finding.Finding
}

// Result is a finished campaign.
type Result struct {
	Seed uint64
	// Checks counts the scenarios checked: 0..Checks-1, all of them,
	// unless the campaign stopped early. A worker given up on then (its
	// check still running when the campaign had to end) counts the checks
	// it finished, in Checks, Coverage and Dimensions alike, and not the
	// one it was in.
	Checks int
	// Drawn counts the scenarios drawn from the generators: Checks, and
	// those the sandbox's adapter could express nothing of.
	Drawn int
	// LeftOut counts those the adapter left out, by why, where the
	// Target says (sut.Target.Why), numbers written N and quoted names
	// "…": what a user reads to see why a real sandbox was asked so few.
	LeftOut    map[string]int
	Elapsed    time.Duration
	Workers    int
	Coverage   oracle.Coverage
	Dimensions *dims.Counts // with Config.Dimensions, the points the checked scenarios hit; else nil
	// DimensionsDrawn, with Config.Dimensions and a Target that adapts
	// scenarios, counts the points of the scenarios as generated, before
	// the adapter narrowed them: a point they hit and the checked ones
	// did not is one the adapter drops, not one the generators miss.
	DimensionsDrawn *dims.Counts
	Findings        []Finding // deduplicated, in check order
	Raw             int64     // raw findings the oracle reported, kept or not
	// CausesSeen lists the distinct causes among them, whatever their
	// invariants (causeOf), by the first check with one: what a user of
	// a sandbox that fails many ways reads to see each way, kept as a
	// finding or not (--per-invariant bounds the files).
	CausesSeen []CauseSeen
	// UnconfirmedHangs counts the hangs of a sandbox whose hangs are
	// confirmed (sut.Target.ConfirmHangs) that a fresh session answered
	// in time when judged again: not findings, the machine was slow.
	UnconfirmedHangs int
	// GivenUp counts the checks still running when the campaign stopped,
	// given up on and not judged: an op or a start longer than what was
	// left of its Duration. Checks does not count them.
	GivenUp int
	// Tally sums what the workers' sessions of a real sandbox counted
	// beside their checks (sut.Target.StartCounted): the ops it refused
	// that the model allows, by reason, and the stdout lines its servers
	// skipped. Zero for other sandboxes.
	Tally       door.Tally
	Interrupted bool // stopped early by its context
	// StricterFiles holds, by reason of Tally.Stricter, the file written
	// with the scenario of the lowest check that had an op counted under
	// it (finding.WriteStricter), when the campaign has an output
	// directory.
	StricterFiles map[string]string
	// Checked is the part of Elapsed the checks took; the rest went to
	// minimizing the findings found, and to ending the sessions.
	Checked time.Duration
}

// OpsPerSecond is the throughput of checked ops, over the time the checks
// took: a sandbox with findings to minimize is not made to look slow by
// the minimizing.
func (r *Result) OpsPerSecond() float64 {
	if r.Checked <= 0 {
		return 0
	}
	return float64(r.Coverage.Ops) / r.Checked.Seconds()
}

// Run runs a campaign until its bound, ctx's end, or (with StopAtFirst) the
// first finding. Findings are minimized in the background as they become
// final and written to cfg.Out one by one. A campaign that ends early —
// ctx ended (interrupted), Duration over, or Abort closed — ends in
// bounded time whatever its sandbox does (see DrainTime, StopTime and
// EndTime, and DurationEndTime): every finding found by then is written,
// minimized as far as the time allowed, and the result says whether it
// was interrupted. Memory does not grow with the number of checks or
// findings.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Checks <= 0 && cfg.Duration <= 0 {
		return nil, fmt.Errorf("campaign: set a number of checks or a duration")
	}
	if cfg.Target.Start == nil {
		cfg.Target = sut.Static(sut.Reference, core.ReferenceFactory)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	start := time.Now()
	stop := newStopper()
	defer stop.release()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer stopEarly(ctx, cfg, cancel, stop)()
	out := newSink(cfg.Target, cfg.Program, cfg.Seed, cfg.Out, stop, cfg.Timeout, cfg.StartTimeout)
	// Findings spread over causes keep their cause as they shrink; the
	// one finding of StopAtFirst shrinks as far as its invariant lets it
	// (a rebinding to a name answered internal at once).
	out.p.Cause, out.p.ShrinkPastCause, out.as.Cause = KeptCause, cfg.StopAtFirst, KeptCause
	out.p.Class = MinimizedClass
	out.written = cfg.Written
	col := newCollector(cfg.StopAtFirst, cfg.PerInvariant, out.put)
	col.confirmsHangs = cfg.Target.ConfirmHangs
	out.first, out.confirmed, out.released = cfg.StopAtFirst, col.confirmed, col.release
	// The reference itself under test is the run dims.Count would make:
	// its points are counted from the check's watched run, not from a
	// second run.
	countInCheck := cfg.Dimensions && cfg.Target.Name == sut.Reference && cfg.Target.Adapt == nil
	var (
		next    atomic.Int64 // next check index to hand out
		counts  = make([]workerCount, workers)
		skipped atomic.Int64 // scenarios the adapter could express nothing of
		leftOut = &whyCounts{n: map[string]int{}}
		covs    = make([]oracle.Coverage, workers)
		// scratches[w] is what worker w's Checker counts a check into;
		// its feed moves each judged check's counts into covs[w] under
		// locks[w] (feed.Judged).
		scratches = make([]oracle.Coverage, workers)
		locks     = make([]countsLock, workers)
		dcs       = make([]dims.Counts, workers)
		drawn     = make([]dims.Counts, workers) // of the scenarios as generated, before an adapter
		errs      = make([]error, workers)
		// over[w] is set once worker w's checks are over: from then on
		// its counts, coverage and error may be read.
		over = make([]atomic.Bool, workers)
		// ends[w] ends worker w's session, once, whoever calls it first:
		// the worker when its checks are over, or Run when it gives up
		// on a worker whose check is stuck.
		ends = make([]atomic.Pointer[func() error], workers)
		// tallies[w] reads what worker w's session counted, when the
		// target counts (sut.Target.StartCounted).
		tallies          = make([]func() door.Tally, workers)
		stricters        stricterScenarios // a scenario of each stricter reason, to write
		checking, ending sync.WaitGroup
	)
	for w := range workers {
		checking.Add(1)
		ending.Add(1)
		go func() {
			defer ending.Done()
			f, end, tally, err := startCounted(cfg.Target)
			if locks[w].hold() {
				tallies[w] = tally
			}
			locks[w].mu.Unlock()
			if err != nil {
				errs[w] = err
				cancel()
				over[w].Store(true)
				checking.Done()
				return
			}
			endOnce := onceEnd(end)
			ends[w].Store(&endOnce)
			judge.CheckFeed(f, judge.Options{Timeout: cfg.Timeout, StartTimeout: cfg.StartTimeout}, &feed{
				cfg: &cfg, ctx: runCtx, col: col, next: &next, count: &counts[w], skipped: &skipped, leftOut: leftOut,
				lock: &locks[w], scratch: &scratches[w],
				cov: &covs[w], dims: &dcs[w], drawn: &drawn[w], countInCheck: countInCheck,
				checked: new(dims.Counts), gen: generators.NewGenerator(),
				tally: tally, base: f, watch: door.NewWatch(tally), stricter: &stricters,
			}, &scratches[w])
			over[w].Store(true)
			checking.Done()
			endOnce()
		}()
	}
	var checked atomic.Int64 // the time the checks took, once they are over
	stopProgress := reportProgress(cfg.Progress, start, counts, out.count, out.queued, col.raws.Load, &checked)
	givenUp := 0
	if !waitOr(&checking, stop.hard) {
		givenUp = giveUpOn(over, ends, locks) // their checks were not found to fail: nothing found is lost
	}
	checked.Store(int64(max(time.Since(start), 1)))
	col.flush()
	out.close()
	waitOr(&ending, stop.last)
	stopProgress()
	res := &Result{Seed: cfg.Seed, Workers: workers, Interrupted: ctx.Err() != nil || isClosed(cfg.Abort), Raw: col.raws.Load(), CausesSeen: col.seenCauses(), GivenUp: givenUp}
	var werr error
	for w := range workers {
		if over[w].Load() && errs[w] != nil {
			return nil, fmt.Errorf("starting %s: %w", cfg.Target.Name, errs[w])
		}
		// A worker given up on is still in a check (or starting its
		// sandbox): what it counted of the checks it finished is taken,
		// and nothing after (countsLock).
		locks[w].freeze(func() {
			res.Checks += int(counts[w].checks.Load())
			if tallies[w] != nil {
				res.Tally.Add(tallies[w]())
			}
			judge.Add(&res.Coverage, &covs[w])
			if cfg.Dimensions {
				addDimensions(res, &dcs[w], &drawn[w], cfg.Target.Adapt != nil)
			}
		})
	}
	res.Findings, res.UnconfirmedHangs, werr = out.result()
	files, ops, said, serr := out.writeStricter(&stricters, res.Tally.Stricter)
	res.StricterFiles, werr = files, errors.Join(werr, serr)
	for reason, op := range ops { // the example shown is the op of the file written, with its words
		if res.Tally.StricterExamples == nil {
			res.Tally.StricterExamples = map[string]string{}
		}
		if res.Tally.StricterSaid == nil {
			res.Tally.StricterSaid = map[string]string{}
		}
		res.Tally.StricterExamples[reason], res.Tally.StricterSaid[reason] = op, said[reason]
	}
	res.Drawn = res.Checks + int(skipped.Load())
	if len(leftOut.n) > 0 {
		res.LeftOut = leftOut.n
	}
	res.Elapsed, res.Checked = time.Since(start), time.Duration(checked.Load())
	return res, werr
}

// startCounted starts a session of t, with the function that reads what
// it counted when t counts (StartCounted), else nil.
func startCounted(t sut.Target) (core.Factory, func() error, func() door.Tally, error) {
	if t.StartCounted != nil {
		return t.StartCounted()
	}
	f, end, err := t.Start()
	return f, end, nil, err
}

// stopEarly arms the stopper for the ways a campaign ends early: ctx's
// end (an interrupt), the end of cfg.Duration, and cfg.Abort. Each also
// ends the drawing of checks (cancel). It returns a function that disarms
// them all.
func stopEarly(ctx context.Context, cfg Config, cancel func(), stop *stopper) (disarm func()) {
	disarmCtx := context.AfterFunc(ctx, func() { stop.after(DrainTime, StopTime, EndTime) })
	var timer *time.Timer
	if cfg.Duration > 0 {
		timer = time.AfterFunc(cfg.Duration, func() {
			cancel()
			stop.after(DurationDrainTime, DurationStopTime, DurationEndTime)
		})
	}
	quit := make(chan struct{})
	if cfg.Abort != nil {
		go func() {
			select {
			case <-cfg.Abort:
				cancel()
				stop.after(0, 0, AbortEndTime)
			case <-quit:
			}
		}()
	}
	return func() {
		disarmCtx()
		if timer != nil {
			timer.Stop()
		}
		close(quit)
	}
}

// isClosed reports whether c is closed; a nil c is not.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// AbortEndTime bounds the wait for the sessions to end after an abort
// (Config.Abort): Run returns once it is over. A command that exits a
// while after the abort whatever Run does gives it more than this, so
// that the summary is printed first.
const AbortEndTime = 250 * time.Millisecond

// onceEnd is end, run once whoever calls it, every caller waiting for it.
func onceEnd(end func() error) func() error { return sync.OnceValue(end) }

// giveUpOn ends the sessions of the workers whose checks are not over, in
// the background: a check stuck in a sandbox of another process returns
// once the process is stopped, and the worker then ends. It freezes
// their counts first: the check each is in does not count, however it
// ends.
func giveUpOn(over []atomic.Bool, ends []atomic.Pointer[func() error], locks []countsLock) int {
	n := 0
	for w := range over {
		if over[w].Load() {
			continue
		}
		n++
		locks[w].freeze(func() {}) // the check it is in does not count, however it ends
		if end := ends[w].Load(); end != nil {
			go (*end)()
		}
	}
	return n
}

// addDimensions adds a worker's dimension counts to res.
func addDimensions(res *Result, checked, drawn *dims.Counts, adapted bool) {
	if res.Dimensions == nil {
		res.Dimensions = new(dims.Counts)
	}
	res.Dimensions.Add(checked)
	if adapted {
		if res.DimensionsDrawn == nil {
			res.DimensionsDrawn = new(dims.Counts)
		}
		res.DimensionsDrawn.Add(drawn)
	}
}

// workerCount is what one worker has checked so far, for the progress
// reports and the result: checks finished and ops run. Each worker counts
// into its own, on a cache line of its own, so that the counting of one
// check is no write to memory the other workers write too (only handing
// out the next check index is): on two cores, counters shared by the
// workers bounced their cache line between them twice a check.
type workerCount struct {
	checks atomic.Int64
	ops    atomic.Uint64
	_      [64 - 16]byte
}

// sumCounts sums the workers' counts; for a running campaign, a snapshot.
func sumCounts(counts []workerCount) Progress {
	var p Progress
	for i := range counts {
		p.Checks += counts[i].checks.Load()
		p.Ops += counts[i].ops.Load()
	}
	return p
}

// reportProgress calls report about once a second until the returned stop
// is called; checked holds the time the checks took once they are over,
// 0 until then.
func reportProgress(report func(Progress), start time.Time, counts []workerCount, findings, queued, raws func() int64, checked *atomic.Int64) (stop func()) {
	if report == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				p := sumCounts(counts)
				p.Findings, p.Queued, p.Raw, p.Elapsed = findings(), queued(), raws(), time.Since(start)
				p.Checked, p.ChecksOver = p.Elapsed, checked.Load() > 0
				if p.ChecksOver {
					p.Checked = time.Duration(checked.Load())
				}
				report(p)
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// hung reports whether the check that found fs was given up on, or
// whose sandbox did not start in time (a hang before any op, whose
// scenario nothing reads any more: it is let go all the same).
func hung(fs []oracle.Finding) bool {
	for _, f := range fs {
		if f.Hang {
			return true
		}
	}
	return false
}

// countDrawn counts the dimension points of a generated scenario before an
// adapter narrows it. Generated grants are valid; one that is not counts
// nothing here (the check reports it).
func countDrawn(sc *scenario.Scenario, c *dims.Counts) {
	if g, err := core.NewGrant(sc.Grant); err == nil {
		dims.Count(sc, g, nil, c)
	}
}
