package scenario

import (
	"slices"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// Scenario is the one scenario type of sbxfuzz: a grant, a world, and ops
// with their attack classes and optional expectations. The parser, the
// generators and the fuzz decoder all produce it; the oracle judges it; the
// printer writes it as a .sbx file. The zero Scenario has budgets of 0 and a clock
// stopped at 0; New gives the SPEC §10 defaults. A Scenario is plain data,
// not safe for concurrent mutation.
type Scenario struct {
	Comment []string       // the header comment, one entry a line, without "# "
	Grant   core.GrantSpec // the grant, checked by core.NewGrant (and, per item, by Parse)
	World   WorldSpec      // the world's initial state
	Steps   []Step         // the ops, in order
}

// Step is one op line: the op, what it is expected to give, and the
// full-line comments written above it.
type Step struct {
	Op      core.Op
	Expect  *Expect  // nil when the line has no "=>"
	Comment []string // comment lines above the op, without "# "
	Line    int      // 1-based source line; 0 when built in code; Equal ignores it
	// Class is the attack class the op was generated for, for coverage
	// counts. A .sbx file does not carry it: parsed ops are Unlabelled,
	// and Equal ignores it.
	Class attack.Class
}

// Ops returns the scenario's ops, in order, in a new slice.
func (s *Scenario) Ops() []core.Op {
	ops := make([]core.Op, len(s.Steps))
	for i := range s.Steps {
		ops[i] = s.Steps[i].Op
	}
	return ops
}

// ClassAt returns the class of the i-th op (from 0), Unlabelled when i is
// out of range.
func (s *Scenario) ClassAt(i int) attack.Class {
	if i >= 0 && i < len(s.Steps) {
		return s.Steps[i].Class
	}
	return attack.Unlabelled
}

// Expect is the expectation after "=>": a verdict kind and, when HasData,
// the data the result must carry. Kind must be a verdict (not core.Invalid)
// for the scenario to print as parseable text.
type Expect struct {
	Kind    core.Kind
	Data    string
	HasData bool
}

// The SPEC §10 defaults.
var (
	defaultBudgets = core.Budgets{MaxOps: 1000, MaxWall: 1000000, MaxOutputBytes: 1048576}
	defaultClock   = TickClock{Start: 0, Step: 1}
)

// New returns an empty scenario with the SPEC §10 defaults: no grants,
// budgets ops 1000, wall 1000000, output 1048576, and clock 0 1. Parse
// starts from it.
func New() *Scenario {
	return &Scenario{
		Grant: core.GrantSpec{Budgets: defaultBudgets},
		World: WorldSpec{Clock: defaultClock},
	}
}

// Equal reports whether s and t describe the same scenario: the same
// comments, grant, world and steps, ignoring Step.Line, treating nil and
// empty lists alike, and ignoring Expect.Data when HasData is false.
func (s *Scenario) Equal(t *Scenario) bool {
	if s == nil || t == nil {
		return s == t
	}
	return slices.Equal(s.Comment, t.Comment) &&
		grantEqual(s.Grant, t.Grant) &&
		worldEqual(s.World, t.World) &&
		slices.EqualFunc(s.Steps, t.Steps, stepEqual)
}

func grantEqual(a, b core.GrantSpec) bool {
	return slices.Equal(a.FSRead, b.FSRead) && slices.Equal(a.FSWrite, b.FSWrite) &&
		slices.Equal(a.NetHosts, b.NetHosts) && slices.Equal(a.Tools, b.Tools) &&
		a.Budgets == b.Budgets
}

func worldEqual(a, b WorldSpec) bool {
	return slices.Equal(a.Files, b.Files) && slices.Equal(a.Links, b.Links) && slices.Equal(a.Routes, b.Routes) &&
		slices.EqualFunc(a.DNS, b.DNS, func(x, y DNSRecord) bool {
			return x.Host == y.Host && slices.Equal(x.Addrs, y.Addrs)
		}) &&
		slices.Equal(a.ToolOutputs, b.ToolOutputs) && a.Clock == b.Clock
}

func stepEqual(a, b Step) bool {
	return a.Op.Kind == b.Op.Kind && slices.Equal(a.Op.Args, b.Op.Args) &&
		slices.Equal(a.Comment, b.Comment) && expectEqual(a.Expect, b.Expect)
}

func expectEqual(a, b *Expect) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.HasData == b.HasData && (!a.HasData || a.Data == b.Data)
}
