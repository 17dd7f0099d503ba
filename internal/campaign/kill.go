package campaign

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// KillMutants runs, for each mutant, a campaign from seed that stops at
// the first finding or after limit checks, on parallel workers (0: all
// cores), and returns the kill table in the order of ms. Once ctx ends,
// the campaigns under way stop (see Run) and the mutants not started are
// left out of it: their rows say not killed, in no checks. Each campaign is
// single-threaded, so its checks-to-kill is a function of the seed alone.
func KillMutants(ctx context.Context, ms []mutants.Mutant, seed uint64, limit, workers int) []reports.Kill {
	ts := make([]Graded, len(ms))
	for i, m := range ms {
		ts[i] = Graded{Row: m.Name, RedFlag: m.RedFlag, Target: sut.Static(sut.MutantPrefix+m.Name, m.Factory)}
	}
	return KillTargets(ctx, ts, Config{Seed: seed, Checks: limit}, workers)
}

// Graded is a sandbox KillTargets grades: its row's name in the kill
// table, the red flag it stands for ("" when none is known), and how it
// is started.
type Graded struct {
	Row     string
	RedFlag string
	Target  sut.Target
}

// KillTargets is KillMutants for any sandboxes (a team's own defect
// variants, exec: commands): for each, a single-threaded campaign of cfg
// (its Seed, Checks as the limit, Timeout, StartTimeout and Program; its
// Target, Workers and StopAtFirst are set here) that stops at the first
// finding, workers of them at once.
func KillTargets(ctx context.Context, ts []Graded, cfg Config, workers int) []reports.Kill {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]reports.Kill, len(ts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(ts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil { // interrupted: the sandboxes not started yet are not run
					out[i] = reports.Kill{Mutant: ts[i].Row, RedFlag: ts[i].RedFlag}
					continue
				}
				out[i] = kill(ctx, ts[i], cfg)
			}
		}()
	}
	for i := range ts {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func kill(ctx context.Context, g Graded, cfg Config) reports.Kill {
	start := time.Now()
	cfg.Target, cfg.Workers, cfg.StopAtFirst = g.Target, 1, true
	res, err := Run(ctx, cfg)
	k := reports.Kill{Mutant: g.Row, RedFlag: g.RedFlag, Seconds: time.Since(start).Seconds()}
	if err != nil || len(res.Findings) == 0 {
		if res != nil {
			k.Checks = res.Checks
		}
		return k
	}
	f := res.Findings[0]
	k.Killed, k.Invariant, k.Checks = true, f.Invariant.String(), f.Check+1
	k.ReproducerOps, k.Reproducer = len(f.Minimized.Steps), string(f.Minimized.Format())
	return k
}
