package core

// Sandbox is the contract every sandbox under test implements: the
// reference, the mutants, and sandboxes that live in another process. It is
// built from a Grant and a World by a Factory and answers Run; everything it
// does to the world goes through the World it was given.
type Sandbox interface {
	// Run executes one op and returns its result (SPEC §5).
	Run(op Op) Result
	// Usage returns the budgets used so far.
	Usage() Usage
	// Grant returns the authority the sandbox enforces.
	Grant() GrantView
}

// Factory builds a sandbox under test over a grant and a world. A Factory
// reads the clock once, when it builds the sandbox, for t0.
type Factory func(Grant, World) Sandbox

// Usage counts what a sandbox has charged against its budgets.
type Usage struct {
	Ops    int64 // ops charged, including denied ones
	Wall   int64 // ticks between t0 and the latest clock read
	Output int64 // bytes returned in data so far
}

// RunAll runs ops in order on s and stops after the first hard result,
// which it includes. It returns the results it got.
func RunAll(s Sandbox, ops []Op) []Result {
	out := make([]Result, 0, len(ops))
	for _, op := range ops {
		r := s.Run(op)
		out = append(out, r)
		if r.Hard {
			break
		}
	}
	return out
}
