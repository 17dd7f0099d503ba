package campaign

import (
	"context"
	"testing"
)

// BenchmarkCampaign measures checked ops per second of a campaign against
// the reference, with one worker and with two, and with the SPEC
// dimensions counted (as sbxfuzz report does) on one worker.
func BenchmarkCampaign(b *testing.B) {
	for _, c := range []struct {
		name    string
		workers int
		dims    bool
	}{{"workers=1", 1, false}, {"workers=2", 2, false}, {"workers=1/dimensions", 1, true}} {
		workers := c.workers
		b.Run(c.name, func(b *testing.B) {
			var ops uint64
			var secs float64
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), Config{Seed: 1, Checks: 5000, Workers: workers, Dimensions: c.dims})
				if err != nil || len(res.Findings) > 0 {
					b.Fatal(err, res.Findings)
				}
				ops += res.Coverage.Ops
				secs += res.Elapsed.Seconds()
			}
			b.ReportMetric(float64(ops)/secs, "ops/s")
		})
	}
}
