package oracle

import (
	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// Coverage counts what a campaign exercised: per invariant and attack class,
// how often the invariant was checked where it applies and how often it was
// violated; per class, which result kinds came back. Arrays indexed by small
// integers keep the per-op cost to a few increments. The zero Coverage is
// empty and ready to use; Add merges another into it.
type Coverage struct {
	Checked    [NumInvariants][attack.NumClasses]uint64
	Violations [NumInvariants][attack.NumClasses]uint64
	Kinds      [attack.NumClasses][core.NumKinds]uint64
	Ops        uint64 // ops run under watch
	Scenarios  uint64 // runs finished
}

// Add adds every counter of o to c.
func (c *Coverage) Add(o *Coverage) {
	for i := range c.Checked {
		for j := range c.Checked[i] {
			c.Checked[i][j] += o.Checked[i][j]
			c.Violations[i][j] += o.Violations[i][j]
		}
	}
	for i := range c.Kinds {
		for j := range c.Kinds[i] {
			c.Kinds[i][j] += o.Kinds[i][j]
		}
	}
	c.Ops += o.Ops
	c.Scenarios += o.Scenarios
}

// CheckedTotal returns how often invariant id was checked, over all classes.
func (c *Coverage) CheckedTotal(id ID) uint64 { return sum(c.Checked[id][:]) }

// ViolationsTotal returns how often invariant id was violated.
func (c *Coverage) ViolationsTotal(id ID) uint64 { return sum(c.Violations[id][:]) }

// ClassOps returns how many ops of class cl ran.
func (c *Coverage) ClassOps(cl attack.Class) uint64 { return sum(c.Kinds[cl][:]) }

func sum(xs []uint64) uint64 {
	var n uint64
	for _, x := range xs {
		n += x
	}
	return n
}

// drain adds o's counters to c and zeroes them in o, reading only the
// columns of the classes in cs: Add, then a reset of o, for the counts of
// one check, all of which are in the columns of its ops' classes and of
// Unlabelled (Case.classes). A campaign's worker drains its check's scratch
// coverage after each check; reading all of it, 7 KB twice, cost more than
// most checks counted.
func (c *Coverage) drain(o *Coverage, cs classSet) {
	for cl, in := range cs {
		if !in {
			continue
		}
		for i := range c.Checked {
			c.Checked[i][cl] += o.Checked[i][cl]
			c.Violations[i][cl] += o.Violations[i][cl]
			o.Checked[i][cl], o.Violations[i][cl] = 0, 0
		}
		for k := range c.Kinds[cl] {
			c.Kinds[cl][k] += o.Kinds[cl][k]
		}
		o.Kinds[cl] = [core.NumKinds]uint64{}
	}
	c.Ops += o.Ops
	c.Scenarios += o.Scenarios
	o.Ops, o.Scenarios = 0, 0
}
