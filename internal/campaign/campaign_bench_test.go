package campaign

import (
	"context"
	"testing"
)

// BenchmarkCampaign measures checked ops per second of a campaign against
// the reference, with one worker and with two.
func BenchmarkCampaign(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[workers], func(b *testing.B) {
			var ops uint64
			var secs float64
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), Config{Seed: 1, Checks: 5000, Workers: workers})
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
