package oracle_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// TestCheckerCountsAsInline: a Checker, which counts each check into its
// worker's scratch coverage and then moves only the counts of the
// check's classes into the caller's, counts exactly what checking inline
// into the caller's coverage does — on the reference, on every mutant
// (whose checks fail, counting violations), on a sandbox that cannot be
// built (a total finding before any op, counted as unlabelled) and on one
// that panics mid-run. A count left out, or left in the scratch for the
// next check, shows as a difference.
func TestCheckerCountsAsInline(t *testing.T) {
	factories := map[string]core.Factory{
		"reference": core.ReferenceFactory,
		"unbuildable": func(core.Grant, core.World) (core.Sandbox, error) {
			return nil, errors.New("no sandbox today")
		},
		"panics at op 3": func(g core.Grant, w core.World) (core.Sandbox, error) {
			return &panicsAt{Sandbox: core.NewReference(g, w), at: 3}, nil
		},
	}
	for _, m := range mutants.All() {
		factories["mutant:"+m.Name] = m.Factory
	}
	n := 60
	if testing.Short() {
		n = 15
	}
	for name, f := range factories {
		k := oracle.NewChecker(f, oracle.Options{})
		var viaChecker, inline oracle.Coverage
		for i := range n {
			sc := generated(i)
			if _, err := k.Check(sc, &viaChecker); err != nil {
				t.Fatal(err)
			}
			c, err := judge.NewCase(sc)
			if err != nil {
				t.Fatal(err)
			}
			judge.CheckInline(f, c, &inline)
		}
		k.Close()
		if diff := cmp.Diff(inline, viaChecker); diff != "" {
			t.Errorf("%s: the Checker counted otherwise than checking inline (-inline +checker):\n%s", name, diff)
		}
		if inline.Scenarios != uint64(n) || inline.Ops == 0 && name != "unbuildable" {
			t.Errorf("%s: inline counted %d scenarios, %d ops", name, inline.Scenarios, inline.Ops)
		}
	}
}

// panicsAt is a sandbox that panics on its at-th op.
type panicsAt struct {
	core.Sandbox
	at, n int
}

func (p *panicsAt) Run(op core.Op) core.Result {
	if p.n++; p.n == p.at {
		panic("a sandbox bug")
	}
	return p.Sandbox.Run(op)
}
