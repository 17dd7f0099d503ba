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
	return ViolatesLike(f, oracle.Finding{Invariant: id}, timeout, 0)
}

// ViolatesLike is Violates for the invariant of target, held to the same
// kind of failure: when target is a hang on an op, a candidate fails only
// by hanging on an op too (a hang while the sandbox is built, which a
// lowered timeout makes of a sandbox slow to start, is another failure,
// and a reproducer of it would not reproduce).
//
// timeout bounds each op; the factory gets start (0: timeout), so that a
// lowered op timeout does not turn a slow start into a hang.
func ViolatesLike(f core.Factory, target oracle.Finding, timeout, start time.Duration) Predicate {
	same := func(fd oracle.Finding) bool {
		if fd.Invariant != target.Invariant {
			return false
		}
		return !target.Hang || fd.Hang && (fd.Step > 0) == (target.Step > 0)
	}
	return func(sc *scenario.Scenario) bool {
		c, err := oracle.NewCase(sc)
		if err != nil {
			return false
		}
		var cov oracle.Coverage
		for _, fd := range oracle.Check(f, c, &cov, oracle.Options{Timeout: timeout, StartTimeout: start}) {
			if same(fd) {
				return true
			}
		}
		return false
	}
}
