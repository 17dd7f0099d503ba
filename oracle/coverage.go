package oracle

import (
	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// Coverage counts what a campaign exercised: per attack class, how often
// each invariant was checked where it applies and how often it was
// violated, and which result kinds came back. Arrays indexed by small
// integers keep the per-op cost to a few increments. The zero Coverage is
// empty and ready to use; Add merges another into it.
type Coverage struct {
	Classes   [attack.NumClasses]ClassCoverage
	Ops       uint64 // ops run under watch
	Scenarios uint64 // runs finished
}

// ClassCoverage is what the ops of one attack class exercised: Checked[id]
// and Violations[id] count invariant id, Kinds[k] the results of kind k.
// A class's counts lie together (a few cache lines), so that moving the
// counts of one check, which are in the classes of its ops, reads little:
// a Checker's worker does that after every check.
type ClassCoverage struct {
	Checked    [NumInvariants]uint64
	Violations [NumInvariants]uint64
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

// Add adds every counter of o to c.
func (c *Coverage) Add(o *Coverage) {
	for cl := range c.Classes {
		c.Classes[cl].add(&o.Classes[cl])
	}
	c.Ops += o.Ops
	c.Scenarios += o.Scenarios
}

// CheckedTotal returns how often invariant id was checked, over all classes.
func (c *Coverage) CheckedTotal(id ID) uint64 {
	var n uint64
	for cl := range c.Classes {
		n += c.Classes[cl].Checked[id]
	}
	return n
}

// ViolationsTotal returns how often invariant id was violated.
func (c *Coverage) ViolationsTotal(id ID) uint64 {
	var n uint64
	for cl := range c.Classes {
		n += c.Classes[cl].Violations[id]
	}
	return n
}

// ClassOps returns how many ops of class cl ran.
func (c *Coverage) ClassOps(cl attack.Class) uint64 {
	var n uint64
	for _, x := range c.Classes[cl].Kinds {
		n += x
	}
	return n
}

// drain adds o's counters to c and zeroes them in o, reading only the
// classes in cs: Add, then a reset of o, for the counts of one check, all
// of which are in the classes of its ops and Unlabelled (Case.classes).
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
