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
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Config describes a campaign. Checks bounds it by count, Duration by time
// (the first reached ends it; at least one must be set). The clock is read
// only to stop a timed campaign and to measure throughput; it never feeds a
// scenario or a verdict.
type Config struct {
	Seed     uint64
	Checks   int           // scenarios to check; 0 means no bound by count
	Duration time.Duration // 0 means no bound by time
	Workers  int           // 0 means runtime.NumCPU()
	// Target is the sandbox under test; the zero Target is the reference.
	// Each worker starts a session of its own, and one more session
	// minimizes the findings.
	Target sut.Target
	// StopAtFirst ends the campaign at the first finding (by check index).
	StopAtFirst bool
	// Progress, when set, is called about once a second from a single
	// goroutine with the counts so far.
	Progress func(Progress)
}

// Progress is a snapshot of a running campaign.
type Progress struct {
	Checks   int64
	Ops      uint64
	Findings int64
	Elapsed  time.Duration
}

// Finding is one violation, minimized by the finding pipeline, and the
// check that found it.
type Finding struct {
	Check int // the index of the check that found it
	*finding.Finding
}

// Result is a finished campaign.
type Result struct {
	Seed        uint64
	Checks      int // scenarios checked: 0..Checks-1, all of them
	Elapsed     time.Duration
	Workers     int
	Coverage    oracle.Coverage
	Findings    []Finding // deduplicated, in check order
	Interrupted bool      // stopped early by its context
	// Pipeline is what minimized the findings, and writes them
	// (WriteFindings).
	Pipeline *finding.Pipeline
}

// OpsPerSecond is the throughput of checked ops.
func (r *Result) OpsPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Coverage.Ops) / r.Elapsed.Seconds()
}

// raw is a finding before minimization.
type raw struct {
	check int
	sc    *scenario.Scenario
	f     oracle.Finding
}

// Run runs a campaign until its bound, ctx's end, or (with StopAtFirst) the
// first finding. Scenarios already started finish, findings so far are
// minimized, and the result says whether it was interrupted.
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
	var (
		next     atomic.Int64 // next check index to hand out
		done     atomic.Int64 // checks finished
		firstBad atomic.Int64 // lowest index with a finding, for StopAtFirst
		ops      atomic.Uint64
		mu       sync.Mutex
		found    []raw
		covs     = make([]oracle.Coverage, workers)
		errs     = make([]error, workers)
		wg       sync.WaitGroup
	)
	firstBad.Store(1 << 62)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cov := &covs[w]
			f, end, err := cfg.Target.Start()
			if err != nil {
				errs[w] = err
				cancel()
				return
			}
			defer end()
			checker := oracle.NewChecker(f, oracle.Options{})
			defer checker.Close()
			for runCtx.Err() == nil {
				i := next.Add(1) - 1
				if cfg.Checks > 0 && i >= int64(cfg.Checks) || cfg.StopAtFirst && i > firstBad.Load() {
					return
				}
				sc := generators.Generate(generators.NewSource(cfg.Seed, uint64(i)))
				c, err := oracle.NewCase(sc)
				if err != nil {
					panic(fmt.Sprintf("generator made an invalid grant at check %d: %v", i, err))
				}
				before := cov.Ops
				fs := checker.Check(c, cov)
				ops.Add(cov.Ops - before)
				if len(fs) > 0 {
					mu.Lock()
					for _, f := range fs {
						found = append(found, raw{int(i), sc, f})
					}
					mu.Unlock()
					for old := firstBad.Load(); i < old && !firstBad.CompareAndSwap(old, i); old = firstBad.Load() {
					}
				}
				done.Add(1)
			}
		}()
	}
	stopProgress := reportProgress(cfg.Progress, start, &done, &ops, func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return int64(len(found))
	})
	wg.Wait()
	stopProgress()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", cfg.Target.Name, err)
		}
	}

	res := &Result{Seed: cfg.Seed, Workers: workers, Elapsed: time.Since(start), Interrupted: ctx.Err() != nil}
	for i := range covs {
		res.Coverage.Add(&covs[i])
	}
	res.Checks = int(done.Load())
	if cfg.StopAtFirst {
		found = keepFirst(found)
	}
	res.Pipeline = &finding.Pipeline{SUT: cfg.Target.Name}
	if len(found) == 0 {
		return res, nil
	}
	f, end, err := cfg.Target.Start() // a session of its own, for minimizing
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", cfg.Target.Name, err)
	}
	defer end()
	res.Pipeline.Factory = f
	res.Findings = minimizeAll(found, res.Pipeline, cfg.Seed)
	return res, nil
}

// reportProgress calls report about once a second until the returned stop
// is called.
func reportProgress(report func(Progress), start time.Time, done *atomic.Int64, ops *atomic.Uint64, findings func() int64) (stop func()) {
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
				report(Progress{Checks: done.Load(), Ops: ops.Load(), Findings: findings(), Elapsed: time.Since(start)})
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

// keepFirst keeps the findings of the lowest check index only.
func keepFirst(found []raw) []raw {
	if len(found) == 0 {
		return found
	}
	lo := found[0].check
	for _, r := range found {
		lo = min(lo, r.check)
	}
	var out []raw
	for _, r := range found {
		if r.check == lo {
			out = append(out, r)
		}
	}
	return out
}

// MaxPerInvariant bounds how many raw findings of one invariant are
// minimized: a badly broken sandbox fails nearly every check, and the
// earliest few, minimized, already name its defect.
const MaxPerInvariant = 4

// minimizeAll minimizes the first MaxPerInvariant findings of each
// invariant and deduplicates them by (invariant, minimized text), keeping
// the earliest check's. It orders work by check index first, so the result
// does not depend on which worker found what.
func minimizeAll(found []raw, p *finding.Pipeline, seed uint64) []Finding {
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].check != found[j].check {
			return found[i].check < found[j].check
		}
		return found[i].f.Invariant < found[j].f.Invariant
	})
	seen := map[string]bool{}
	var tried [oracle.NumInvariants]int
	var out []Finding
	for _, r := range found {
		if tried[r.f.Invariant]++; tried[r.f.Invariant] > MaxPerInvariant {
			continue
		}
		f := p.Process(r.sc, r.f, fmt.Sprintf("seed %d, check %d", seed, r.check))
		key := f.FileName()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Finding{Check: r.check, Finding: f})
	}
	return out
}
