package minimize

import (
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Violates returns the predicate "the oracle finds invariant id when the
// sandbox f builds runs the scenario", each op bounded by timeout (0: the
// oracle's default). A candidate whose grant is invalid does not fail.
func Violates(f core.Factory, id oracle.ID, timeout time.Duration) Predicate {
	return func(sc *scenario.Scenario) bool {
		c, err := oracle.NewCase(sc)
		if err != nil {
			return false
		}
		var cov oracle.Coverage
		for _, fd := range oracle.Check(f, c, &cov, oracle.Options{Timeout: timeout}) {
			if fd.Invariant == id {
				return true
			}
		}
		return false
	}
}
