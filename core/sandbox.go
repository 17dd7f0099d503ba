package core

// Sandbox is the contract every sandbox under test implements: the
// reference, the mutants, a user's own sandbox, and sandboxes that live in
// another process. It is built from a Grant and a World by a Factory and
// answers Run; everything it does to the world goes through the World it
// was given.
//
// A Sandbox that holds resources (a process, a connection, a goroutine)
// also implements io.Closer. The harness closes every sandbox it built when
// the scenario is over, and closes a sandbox whose Run does not return in
// time (a hang) from another goroutine, while Run is still blocked: Close
// must then make Run return, however it can. A hung Run that ignores Close
// leaks its goroutine, since Go cannot stop one from outside.
type Sandbox interface {
	// Run executes one op and returns its result (SPEC §5).
	Run(op Op) Result
	// Usage returns the budgets used so far.
	Usage() Usage
	// Grant returns the authority the sandbox enforces.
	Grant() GrantView
}

// Factory builds a sandbox under test over a grant and a world, reading the
// clock once for t0. It returns an error when the sandbox cannot start (a
// process that will not run, a grant it cannot express): the harness
// reports it as a total finding, never a panic. Each call returns a fresh
// sandbox, though a Factory may reuse what an earlier call built (a child
// process that opens a new sandbox for each scenario).
//
// The harness may call a Factory from several goroutines at once (a
// campaign has a worker per core) unless it was given one per goroutine
// (the sandbox registry's sessions); and after a call that hung, it may
// call the Factory again while the hung call has not returned.
type Factory func(Grant, World) (Sandbox, error)

// Usage counts what a sandbox has charged against its budgets.
type Usage struct {
	Ops    int64 // ops charged, including denied ones
	Wall   int64 // ticks between t0 and the latest clock read
	Output int64 // bytes returned in data so far
}
