//go:build unix

package cli

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// BenchmarkPipe measures checked ops per second of a campaign with 2
// workers: the reference in process, then over the sbxfuzz/1 pipe (sbxfuzz
// serve), then the Python and Node examples, in the same run:
//
//	go test -run '^$' -bench Pipe -benchtime 1x ./internal/cli
func BenchmarkPipe(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "sbxfuzz")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/sbxfuzz").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	py, _ := filepath.Abs("../../examples/python/sandbox.py")
	js, _ := filepath.Abs("../../examples/node/sandbox.js")
	for _, c := range []struct{ name, sut, needs string }{
		{"reference", "reference", ""},
		{"serve", "exec:" + bin + " serve", ""},
		{"python", "exec:python3 " + py, "python3"},
		{"node", "exec:node " + js, "node"},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.needs != "" {
				if _, err := exec.LookPath(c.needs); err != nil {
					b.Skipf("%s is not installed", c.needs)
				}
			}
			target, err := sut.Lookup(c.sut)
			if err != nil {
				b.Fatal(err)
			}
			var ops uint64
			var secs float64
			for range b.N {
				res, err := campaign.Run(context.Background(), campaign.Config{Seed: 1, Checks: 500, Workers: 2, Target: target})
				if err != nil {
					b.Fatal(err)
				}
				ops += res.Coverage.Ops
				secs += res.Elapsed.Seconds()
			}
			b.ReportMetric(float64(ops)/secs, "ops/s")
		})
	}
}
