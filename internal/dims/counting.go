package dims

import (
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Counting returns a factory of the reference sandbox that counts into c
// the points sc hits, exactly as Count does, while a check runs sc on it:
// a campaign whose sandbox under test is the reference counts each
// scenario from the run the oracle watches, instead of running it once
// more. Only the first sandbox the factory builds counts (a check builds a
// second for its replay), and only over a *refworld.World, the world the
// oracle builds sandboxes over; any other sandbox it builds is the plain
// reference. Counting and Count share c's per-scenario state: a Counts
// counts one scenario at a time. A check given up on (a hang) may go on
// counting into c from its abandoned goroutine: count each check into a
// Counts of its own, and add it to the totals only once the check is
// judged (Add, then Reset for the next).
func (c *Counts) Counting(sc *scenario.Scenario) core.Factory {
	counted := false
	return func(g core.Grant, w core.World) (core.Sandbox, error) {
		rw, ok := w.(*refworld.World)
		if counted || !ok {
			return core.NewReference(g, w), nil
		}
		counted = true
		s := c.counter()
		s.start(sc, g)
		s.world = recorder{World: rw}
		ref := core.NewReference(g, &s.world)
		s.begin(sc, ref)
		return &countingSandbox{Reference: ref, c: c}, nil
	}
}

// countingSandbox is the reference, counting each op it runs until it
// halts, as Count does.
type countingSandbox struct {
	*core.Reference
	c      *Counts
	halted bool // a hard result came back: the reference answers at its gate from now on
}

// Run runs op on the reference, counting the points it hits unless the
// reference had halted (Count stops there: every later op stops at the
// gate).
func (s *countingSandbox) Run(op core.Op) core.Result {
	if s.halted {
		return s.Reference.Run(op)
	}
	r := s.c.step(op)
	s.halted = r.Hard
	return r
}
