package core

import (
	"math"
	"slices"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// Reference is the reference sandbox: SPEC §5, step by step. It is not safe
// for concurrent use.
type Reference struct {
	grant  Grant
	rules  *grantData // grant.data(), once
	world  World
	t0     int64
	usage  Usage
	halted Kind // the hard kind that latched, or Invalid while running
}

// NewReference builds the reference sandbox over g and w, reading the clock
// once for t0. (That first tick is a tick clock's Start, never past 2^63−1;
// should another clock answer ok=false already, t0 is math.MaxInt64 and
// every later tick past the top still halts max_wall.)
func NewReference(g Grant, w World) *Reference {
	t0, _ := w.Now()
	return &Reference{grant: g, rules: g.data(), world: w, t0: t0}
}

// ReferenceFactory is NewReference as a Factory. It never fails.
func ReferenceFactory(g Grant, w World) (Sandbox, error) { return NewReference(g, w), nil }

// Usage implements Sandbox.
func (s *Reference) Usage() Usage { return s.usage }

// Grant implements Sandbox.
func (s *Reference) Grant() GrantView { return s.grant }

// Run implements Sandbox. Each step returns as soon as it decides.
func (s *Reference) Run(op Op) Result {
	// 1. Halt gate: no charge, no clock read, no world call.
	if s.halted != Invalid {
		return Result{Kind: s.halted, Hard: true}
	}
	// 2. Charge, before anything can be refused: probing burns budget.
	s.usage.Ops++
	if s.usage.Ops > s.rules.budgets.MaxOps {
		return s.halt(MaxOps)
	}
	now, inRange := s.world.Now()
	s.usage.Wall = now - s.t0
	switch {
	case !inRange: // a tick past 2^63−1 (SPEC §7): past any budget
		s.usage.Wall = math.MaxInt64
		return s.halt(MaxWall)
	case now > s.t0 && s.usage.Wall < 0: // a wall past math.MaxInt64: past any budget
		s.usage.Wall = math.MaxInt64
		return s.halt(MaxWall)
	case now < s.t0 && s.usage.Wall > 0: // below math.MinInt64: a clock run backwards
		s.usage.Wall = math.MinInt64
	}
	if s.usage.Wall > s.rules.budgets.MaxWall {
		return s.halt(MaxWall)
	}
	// 3. Dispatch.
	n, known := spec.Arity(op.Kind)
	if !known {
		return Result{Kind: UnknownOp}
	}
	if !spec.WellFormed(op.Args, n) {
		return Result{Kind: MalformedOp}
	}
	// 4. Check, then effect.
	a := op.Args
	switch op.Kind {
	case OpRead:
		return s.read(a[0])
	case OpWrite:
		return s.write(a[0], a[1])
	case OpFetch:
		return s.fetch(a[0], a[1])
	default: // OpTool
		return s.tool(a[0], a[1])
	}
}

func (s *Reference) read(p string) Result {
	r, k := s.checkPath(p, s.rules.readRoots, FSReadDenied)
	if k != OK {
		return Result{Kind: k}
	}
	data, ok := s.world.Read(r) // the path resolved, never p itself
	if !ok {
		return Result{Kind: NotFound}
	}
	return s.output(data)
}

func (s *Reference) write(p, data string) Result {
	r, k := s.checkPath(p, s.rules.writeRoots, FSWriteDenied)
	if k != OK {
		return Result{Kind: k}
	}
	s.world.Write(r, data) // the path resolved, never p itself
	return Result{Kind: OK}
}

// checkPath is the check half of fs_read and fs_write (SPEC §5 step 4):
// traversal on the raw path; the allow-list on its canonical form; then,
// only once both pass, r = VFS.Realpath(p) and the same allow-list on r,
// so that a link inside the roots cannot lead outside them (SPEC §13). It
// returns the path the effect must act on, and OK; or the kind that
// refuses the op: PathTraversal, denied (both allow-list checks), or
// NotFound when the world's links loop.
func (s *Reference) checkPath(p string, roots []string, denied Kind) (r string, k Kind) {
	if spec.HasTraversal(p) {
		return "", PathTraversal
	}
	if !spec.UnderRoots(spec.Canonical(p), roots) {
		return "", denied
	}
	r, ok := s.world.Realpath(p) // after the lexical checks: resolving first would probe outside the roots
	switch {
	case !ok:
		return "", NotFound
	case !spec.UnderRoots(r, roots): // a resolved path is canonical
		return "", denied
	}
	return r, OK
}

func (s *Reference) fetch(host, path string) Result {
	if !slices.Contains(s.rules.hosts, host) {
		return Result{Kind: EgressDenied}
	}
	a := s.world.Resolve(host) // exactly once: the address checked is the address used
	if spec.IsInternal(a) {
		return Result{Kind: EgressInternal}
	}
	body, ok := s.world.Fetch(host, a, path)
	if !ok {
		return Result{Kind: NotFound}
	}
	return s.output(body)
}

func (s *Reference) tool(name, input string) Result {
	if !slices.Contains(s.rules.tools, name) {
		return Result{Kind: ToolDenied}
	}
	out, ok := s.world.Call(name, input)
	if !ok {
		return Result{Kind: NotFound}
	}
	return s.output(out)
}

// output is step 5: charge the bytes an effect produced, or halt without
// returning them.
func (s *Reference) output(data string) Result {
	n := int64(len(data))
	if s.usage.Output+n > s.rules.budgets.MaxOutputBytes {
		return s.halt(MaxOutputBytes)
	}
	s.usage.Output += n
	return Result{Kind: OK, Data: data}
}

func (s *Reference) halt(k Kind) Result {
	s.halted = k
	return Result{Kind: k, Hard: true}
}
