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
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]reports.Kill, len(ms))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(ms)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil { // interrupted: the mutants not started yet are not run
					out[i] = reports.Kill{Mutant: ms[i].Name, RedFlag: ms[i].RedFlag}
					continue
				}
				out[i] = kill(ctx, ms[i], seed, limit)
			}
		}()
	}
	for i := range ms {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func kill(ctx context.Context, m mutants.Mutant, seed uint64, limit int) reports.Kill {
	start := time.Now()
	res, err := Run(ctx, Config{Seed: seed, Checks: limit, Workers: 1, Target: sut.Static("mutant:"+m.Name, m.Factory), StopAtFirst: true})
	k := reports.Kill{Mutant: m.Name, RedFlag: m.RedFlag, Seconds: time.Since(start).Seconds()}
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
