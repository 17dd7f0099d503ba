package dims_test

import (
	"flag"
	"sort"
	"sync"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
)

var (
	generatedScenarios = flag.Int("dims.generated-scenarios", 10000, "scenarios TestGeneratorsHitEveryPoint counts (the default campaign's)")
	generatedSeed      = flag.Uint64("dims.seed", 1, "seed of the scenarios TestGeneratorsHitEveryPoint counts")
)

// countDims generates streams [0, n) of seed, as a campaign does, counts
// the SPEC dimensions' points each hits, and returns, per point of the
// catalog, how many scenarios hit it at least once.
func countDims(t testing.TB, seed uint64, n int) (scen []int) {
	const workers = 4
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	scen = make([]int, len(dims.Catalog()))
	for w := range workers {
		wg.Go(func() {
			local := make([]int, len(scen))
			for i := w; i < n; i += workers {
				sc := generators.Generate(generators.NewSource(seed, uint64(i)))
				g, err := core.NewGrant(sc.Grant)
				if err != nil {
					t.Errorf("stream %d: invalid grant: %v", i, err)
					return
				}
				var c dims.Counts
				dims.Count(sc, g, nil, &c)
				for j, h := range c.Slice() {
					if h > 0 {
						local[j]++
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for j, k := range local {
				scen[j] += k
			}
		})
	}
	wg.Wait()
	return scen
}

// TestGeneratorsHitEveryPoint generates the default campaign's scenarios
// (seed 1, or -dims.seed, streams 0 to 9,999: what `sbxfuzz report`
// checks) and counts the SPEC dimensions' points they hit: every
// reachable point must be hit, and by at least three scenarios, so that
// another seed hits it too. It takes about a second (a few under -race):
// the point is the whole campaign, so -short runs it too.
func TestGeneratorsHitEveryPoint(t *testing.T) {
	n, least := *generatedScenarios, 3
	if n < 10000 {
		least = 1 // a shorter campaign: the hit at all is what it shows
	}
	scen := countDims(t, *generatedSeed, n)
	cat := dims.Catalog()
	type low struct {
		p dims.Point
		n int
	}
	var lows []low
	for i, p := range cat {
		if p.Unreachable == "" && scen[i] < least {
			lows = append(lows, low{p, scen[i]})
		}
	}
	for _, l := range lows {
		t.Errorf("%s: hit by %d of %d scenarios, want at least %d", l.p, l.n, n, least)
	}
	for _, d := range dims.IDs {
		var rs []int
		for i, p := range cat {
			if p.Dim == d && p.Unreachable == "" {
				rs = append(rs, scen[i])
			}
		}
		sort.Ints(rs)
		t.Logf("%-14s %3d points, scenarios per point: least %d, tenth percentile %d, median %d",
			d, len(rs), rs[0], rs[len(rs)/10], rs[len(rs)/2])
	}
}
