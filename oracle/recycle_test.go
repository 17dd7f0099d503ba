package oracle

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
)

// TestRecycledChecksJudgeAsFresh: a check reuses the memory of the checks
// before it (their prepared worlds, worlds, model and run), so nothing of
// one scenario may reach the judgement of the next. Judged in one order and
// then in the reverse, every scenario must get the same findings and the
// same counts: a file the model or a template kept from an earlier world,
// a dns line's turn, a root, a halt or a usage carried over would show as
// a verdict the other order does not give (against the reference, as a
// finding), or as counts that differ.
func TestRecycledChecksJudgeAsFresh(t *testing.T) {
	var cases []checkCase
	for i := range 400 {
		c, err := newCase(generators.Generate(generators.NewSource(7, uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	factories := map[string]core.Factory{
		"reference": core.ReferenceFactory,
		// a sandbox with findings, so that findings are compared too
		"peek-on-denial": infallible(func(g core.Grant, w core.World) core.Sandbox { return peekOnDenial{wrap(g, w)} }),
	}
	for name, f := range factories {
		judge := func(order []int) []string {
			out := make([]string, len(cases))
			for _, i := range order {
				var cov Coverage
				fs := checkInline(f, cases[i], &cov)
				out[i] = fmt.Sprint(fs, cov)
			}
			return out
		}
		forward := make([]int, len(cases))
		for i := range forward {
			forward[i] = i
		}
		backward := slices.Clone(forward)
		slices.Reverse(backward)
		a, b := judge(forward), judge(backward)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: scenario %d is judged differently after other scenarios than before them:\n%s\n%s", name, i, a[i], b[i])
			}
		}
		if name == "reference" && slices.ContainsFunc(a, func(s string) bool { return s[:2] != "[]" }) {
			t.Errorf("reference: findings on a correct sandbox")
		}
	}
}
