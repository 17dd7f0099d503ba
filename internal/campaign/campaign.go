// Package campaign runs sbxfuzz campaigns: generate hostile scenarios from a
// seed, judge each with the oracle on the sandbox under test, and minimize
// every finding into a small scenario. Check i of a campaign draws from the
// seeded source (seed, i), so results depend on the seed and the number of
// checks, never on the number of workers or on timing.
package campaign

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

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
	// Out is the directory each finding is written to as soon as it is
	// minimized, so that a campaign killed later keeps it; "" keeps them
	// in the Result only.
	Out string
	// StopAtFirst ends the campaign at the first finding (by check index).
	StopAtFirst bool
	// Dimensions counts the SPEC dimension points each checked scenario
	// hits (package dims) into Result.Dimensions: on the reference, from
	// the run the check watches (dims.Counts.Counting); on any other
	// sandbox, a second, reference run of every scenario. Campaigns that
	// only hunt (the mutants) leave it off.
	Dimensions bool
	// Progress, when set, is called about once a second from a single
	// goroutine with the counts so far.
	Progress func(Progress)
}

// Progress is a snapshot of a running campaign.
type Progress struct {
	Checks   int64
	Ops      uint64
	Findings int64 // minimized (and written) so far
	Raw      int64 // raw findings, kept or not
	Elapsed  time.Duration
}

// Finding is one violation, minimized by the finding pipeline, the check
// that found it, and the file it was written to.
type Finding struct {
	Check int    // the index of the check that found it
	Path  string // where it was written; "" when Config.Out is ""
	*finding.Finding
}

// Result is a finished campaign.
type Result struct {
	Seed   uint64
	Checks int // scenarios checked: 0..Checks-1, all of them
	// Drawn counts the scenarios drawn from the generators: Checks, and
	// those the sandbox's adapter could express nothing of.
	Drawn      int
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
	Interrupted     bool      // stopped early by its context
}

// OpsPerSecond is the throughput of checked ops.
func (r *Result) OpsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Coverage.Ops) / r.Elapsed.Seconds()
}

// numInvariants sizes the sink's queue.
const numInvariants = int(oracle.NumInvariants)

// Run runs a campaign until its bound, ctx's end, or (with StopAtFirst) the
// first finding. Findings are minimized in the background as they become
// final and written to cfg.Out one by one. When ctx ends, the scenarios
// already started finish, what is pending is minimized for at most
// DrainTime each, and the result says it was interrupted. Memory does not
// grow with the number of checks or findings.
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
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if cfg.Duration > 0 {
		var c2 context.CancelFunc
		runCtx, c2 = context.WithTimeout(runCtx, cfg.Duration)
		defer c2()
	}
	start := time.Now()
	out := newSink(cfg.Target, cfg.Seed, cfg.Out, cfg.Timeout)
	col := newCollector(cfg.StopAtFirst, out.put)
	stopHurry := context.AfterFunc(ctx, out.interrupt) // interrupted: minimize what is pending briefly
	defer stopHurry()
	// The reference itself under test is the run dims.Count would make:
	// its points are counted from the check's watched run, not from a
	// second run.
	countInCheck := cfg.Dimensions && cfg.Target.Name == sut.Reference && cfg.Target.Adapt == nil
	var (
		next    atomic.Int64 // next check index to hand out
		counts  = make([]workerCount, workers)
		skipped atomic.Int64 // scenarios the adapter could express nothing of
		covs    = make([]oracle.Coverage, workers)
		dcs     = make([]dims.Counts, workers)
		drawn   = make([]dims.Counts, workers) // of the scenarios as generated, before an adapter
		errs    = make([]error, workers)
		wg      sync.WaitGroup
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, end, err := cfg.Target.Start()
			if err != nil {
				errs[w] = err
				cancel()
				return
			}
			defer end()
			checker := oracle.NewChecker(f, oracle.Options{Timeout: cfg.Timeout})
			defer checker.Close()
			checker.CheckAll(&feed{
				cfg: &cfg, ctx: runCtx, col: col, next: &next, count: &counts[w], skipped: &skipped,
				cov: &covs[w], dims: &dcs[w], drawn: &drawn[w], countInCheck: countInCheck,
				checked: new(dims.Counts), gen: generators.NewGenerator(),
			}, &covs[w])
		}()
	}
	stopProgress := reportProgress(cfg.Progress, start, counts, out.count, col.raws.Load)
	wg.Wait()
	col.flush()
	out.close()
	stopProgress()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", cfg.Target.Name, err)
		}
	}
	res := &Result{Seed: cfg.Seed, Workers: workers, Elapsed: time.Since(start), Interrupted: ctx.Err() != nil,
		Findings: out.findings, Raw: col.raws.Load()}
	for i := range covs {
		res.Coverage.Add(&covs[i])
		if cfg.Dimensions {
			if res.Dimensions == nil {
				res.Dimensions = new(dims.Counts)
			}
			res.Dimensions.Add(&dcs[i])
			if cfg.Target.Adapt != nil {
				if res.DimensionsDrawn == nil {
					res.DimensionsDrawn = new(dims.Counts)
				}
				res.DimensionsDrawn.Add(&drawn[i])
			}
		}
	}
	res.Checks = int(sumCounts(counts).Checks)
	res.Drawn = res.Checks + int(skipped.Load())
	return res, out.err
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
// is called.
func reportProgress(report func(Progress), start time.Time, counts []workerCount, findings, raws func() int64) (stop func()) {
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
				p.Findings, p.Raw, p.Elapsed = findings(), raws(), time.Since(start)
				report(p)
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// hung reports whether the check that found fs was given up on.
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
