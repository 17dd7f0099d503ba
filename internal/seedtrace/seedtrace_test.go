package seedtrace_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/seedtrace"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestTheWorkedTrace: on the reference, the ops answer as SPEC §10's worked
// trace says, twice round (the budgets never halt them), with and without
// links off the trace's paths.
func TestTheWorkedTrace(t *testing.T) {
	want := []core.Result{
		{Kind: core.OK, Data: "hello"},
		{Kind: core.FSReadDenied},
		{Kind: core.PathTraversal},
		{Kind: core.OK},
		{Kind: core.FSWriteDenied},
		{Kind: core.OK, Data: "ok"},
		{Kind: core.EgressDenied},
	}
	for _, links := range [][]scenario.Link{nil, {{Path: "/work/l", Target: "/etc/passwd"}}} {
		s := core.NewReference(must.Grant(seedtrace.Grant()), refworld.New(seedtrace.World(links...)))
		for round := range 2 {
			var got []core.Result
			for _, op := range seedtrace.Ops() {
				got = append(got, s.Run(op))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("links %v, round %d (-SPEC §10 +reference):\n%s", links, round+1, diff)
			}
		}
	}
}
