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

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/minimize"
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
	Factory  core.Factory  // the sandbox under test
	SUT      string        // its name, for reproducer commands
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

// Finding is one violation, minimized.
type Finding struct {
	Check     int       // the index of the check that found it
	Invariant oracle.ID // the invariant violated
	Step      int       // the step of the original scenario
	Class     attack.Class
	Detail    string             // the oracle's words, on the original scenario
	Original  *scenario.Scenario // as generated
	Minimized *scenario.Scenario // as minimized, with the reference's results as expectations
	MinDetail string             // the oracle's words on the minimized scenario
	MinStep   int                // the step at which the minimized scenario fails
	Calls     int                // predicate calls the minimization made
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
	sc    generators.Scenario
	f     oracle.Finding
}

// Run runs a campaign until its bound, ctx's end, or (with StopAtFirst) the
// first finding. Scenarios already started finish, findings so far are
// minimized, and the result says whether it was interrupted.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Checks <= 0 && cfg.Duration <= 0 {
		return nil, fmt.Errorf("campaign: set a number of checks or a duration")
	}
	if cfg.Factory == nil {
		cfg.Factory = core.ReferenceFactory
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
		wg       sync.WaitGroup
	)
	firstBad.Store(1 << 62)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cov := &covs[w]
			checker := oracle.NewChecker(cfg.Factory, oracle.Options{})
			defer checker.Close()
			for runCtx.Err() == nil {
				i := next.Add(1) - 1
				if cfg.Checks > 0 && i >= int64(cfg.Checks) || cfg.StopAtFirst && i > firstBad.Load() {
					return
				}
				sc := generators.Generate(generators.NewSource(cfg.Seed, uint64(i)))
				c, err := sc.Case()
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

	res := &Result{Seed: cfg.Seed, Workers: workers, Elapsed: time.Since(start), Interrupted: ctx.Err() != nil}
	for i := range covs {
		res.Coverage.Add(&covs[i])
	}
	res.Checks = int(done.Load())
	if cfg.StopAtFirst {
		found = keepFirst(found)
	}
	res.Findings = minimizeAll(found, cfg.Factory)
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
func minimizeAll(found []raw, f core.Factory) []Finding {
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
		orig := toScenario(r.sc)
		minSc, stats := minimize.Minimize(orig, r.f.Step, minimize.Violates(f, r.f.Invariant))
		key := r.f.Invariant.String() + "\x00" + string(minSc.Format())
		if seen[key] {
			continue
		}
		seen[key] = true
		detail, step := explain(f, minSc, r.f.Invariant)
		minimize.ExpectReference(minSc)
		class := attack.Unlabelled
		if r.f.Step > 0 && r.f.Step <= len(r.sc.Classes) {
			class = r.sc.Classes[r.f.Step-1]
		}
		out = append(out, Finding{Check: r.check, Invariant: r.f.Invariant, Step: r.f.Step, Class: class,
			Detail: r.f.Detail, Original: orig, Minimized: minSc, MinDetail: detail, MinStep: step, Calls: stats.Calls})
	}
	return out
}

// explain judges the minimized scenario again for the words of its
// finding.
func explain(f core.Factory, sc *scenario.Scenario, id oracle.ID) (string, int) {
	c, err := minimize.Case(sc)
	if err != nil {
		return err.Error(), 0
	}
	var cov oracle.Coverage
	for _, fd := range oracle.Check(f, c, &cov, oracle.Options{}) {
		if fd.Invariant == id {
			return fd.Detail, fd.Step
		}
	}
	return "the minimized scenario no longer fails (the sandbox is nondeterministic)", 0
}

// toScenario turns a generated scenario into the .sbx form.
func toScenario(g generators.Scenario) *scenario.Scenario {
	sc := scenario.New()
	sc.Grant = g.Grant
	sc.World = g.World
	sc.Steps = make([]scenario.Step, len(g.Ops))
	for i, op := range g.Ops {
		sc.Steps[i] = scenario.Step{Op: op}
	}
	return sc
}
