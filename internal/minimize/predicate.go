package minimize

import (
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Violates returns the predicate "the oracle finds invariant id when the
// sandbox f builds runs the scenario". A candidate whose grant is invalid
// does not fail.
func Violates(f core.Factory, id oracle.ID) Predicate {
	return func(sc *scenario.Scenario) bool {
		c, err := Case(sc)
		if err != nil {
			return false
		}
		var cov oracle.Coverage
		for _, fd := range oracle.Check(f, c, &cov, oracle.Options{Timeout: 5 * time.Second}) {
			if fd.Invariant == id {
				return true
			}
		}
		return false
	}
}

// Case turns a scenario into the oracle's case.
func Case(sc *scenario.Scenario) (oracle.Case, error) {
	g, err := core.NewGrant(sc.Grant)
	if err != nil {
		return oracle.Case{}, err
	}
	ops := make([]core.Op, len(sc.Steps))
	for i, s := range sc.Steps {
		ops[i] = s.Op
	}
	return oracle.Case{Grant: g, World: sc.World, Ops: ops}, nil
}

// ExpectReference writes the reference sandbox's results into sc as
// expectations, so a minimized finding is also a regression test: the
// reference (which the oracle's independent model agrees with) passes it, a
// sandbox with the defect does not. Every op runs, after a halt too.
func ExpectReference(sc *scenario.Scenario) {
	g, w, err := sc.Build()
	if err != nil {
		return
	}
	ref := core.NewReference(g, w)
	for i := range sc.Steps {
		r := ref.Run(sc.Steps[i].Op)
		sc.Steps[i].Expect = &scenario.Expect{Kind: r.Kind, Data: r.Data, HasData: r.Data != ""}
	}
}
