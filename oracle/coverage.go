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
