package oracle

import (
	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// Coverage counts what a campaign exercised: per attack class, how often
// each invariant was checked where it applies and how often it was
// violated, and which result kinds came back. Arrays indexed by small
// integers keep the per-op cost to a few increments. The zero Coverage is
// empty and ready to use; a Checker counts into it, and it is not safe for
// concurrent use.
type Coverage struct {
	Classes   [attack.NumClasses]ClassCoverage
	Ops       uint64 // ops run under watch
	Scenarios uint64 // runs finished
}

// ClassCoverage is what the ops of one attack class exercised: Checked[id]
// and Violations[id] count invariant id (one counter per ID, Total the
// last), Kinds[k] the results of kind k.
// A class's counts lie together (a few cache lines), so that moving the
// counts of one check, which are in the classes of its ops, reads little:
// a Checker's worker does that after every check.
type ClassCoverage struct {
	Checked    [Total + 1]uint64
	Violations [Total + 1]uint64
	Kinds      [core.NumKinds]uint64
}

// add adds every counter of o to c.
func (c *ClassCoverage) add(o *ClassCoverage) {
	for i := range c.Checked {
		c.Checked[i] += o.Checked[i]
		c.Violations[i] += o.Violations[i]
	}
	for k := range c.Kinds {
		c.Kinds[k] += o.Kinds[k]
	}
}

// drain adds o's counters to c and zeroes them in o, reading only the
// classes in cs: an add, then a reset of o, for the counts of one check, all
// of which are in the classes of its ops and Unlabelled (checkCase.classes).
func (c *Coverage) drain(o *Coverage, cs classSet) {
	for cl, in := range cs {
		if in {
			c.Classes[cl].add(&o.Classes[cl])
			o.Classes[cl] = ClassCoverage{}
		}
	}
	c.Ops += o.Ops
	c.Scenarios += o.Scenarios
	o.Ops, o.Scenarios = 0, 0
}
