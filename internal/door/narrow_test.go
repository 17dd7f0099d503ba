package door

import (
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestNarrow: Narrow applies the Target's adapter to a copy, maps the kept
// steps back to the original's, and lists the ones left out; without an
// adapter it is the scenario itself; an adapter that rewrites an op loses
// the map; one that keeps nothing skips every step.
func TestNarrow(t *testing.T) {
	sc, err := scenario.Parse("x.sbx", []byte("grant fs_read /work\n\nfs_read /work/a\ntool echo hi\nfs_read /work/a\nfs_read /work/b\n"))
	if err != nil {
		t.Fatal(err)
	}
	dropTools := func(s *scenario.Scenario) *scenario.Scenario {
		s.Steps = slices.DeleteFunc(s.Steps, func(st scenario.Step) bool { return st.Op.Kind == core.OpTool })
		return s
	}
	rewrite := func(s *scenario.Scenario) *scenario.Scenario {
		s.Steps[0].Op.Args = []string{"/elsewhere"}
		return s
	}
	for _, tc := range []struct {
		reason      string
		adapt       func(*scenario.Scenario) *scenario.Scenario
		steps       int
		of, skipped []int
	}{
		{"no adapter: the scenario itself", nil, 4, []int{1, 2, 3, 4}, nil},
		{"an adapter that drops an op", dropTools, 3, []int{1, 3, 4}, []int{2}},
		{"an adapter that rewrites an op", rewrite, 4, nil, nil},
		{"an adapter that keeps nothing", func(*scenario.Scenario) *scenario.Scenario { return nil }, 0, nil, []int{1, 2, 3, 4}},
	} {
		before := string(sc.Format())
		n := Target{Name: "x", Adapt: tc.adapt}.Narrow(sc)
		if string(sc.Format()) != before {
			t.Errorf("%s: the original changed", tc.reason)
		}
		steps := 0
		if n.Scenario != nil {
			steps = len(n.Scenario.Steps)
		}
		if steps != tc.steps || !slices.Equal(n.Of, tc.of) || !slices.Equal(n.Skipped, tc.skipped) {
			t.Errorf("%s: %d steps, Of %v, Skipped %v; want %d, %v, %v", tc.reason, steps, n.Of, n.Skipped, tc.steps, tc.of, tc.skipped)
		}
		if tc.adapt == nil && n.Scenario != sc {
			t.Errorf("%s: not the scenario itself", tc.reason)
		}
	}
}
