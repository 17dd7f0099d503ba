package proc

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/networld"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Sessions returns how to start sessions of the sandbox COMMAND runs (the
// Start of the sut.Target of --sut exec:COMMAND): each session is one
// child, started at its first scenario, reused across scenarios
// (sandbox/open), restarted after a failure, and shut down when the
// session ends. COMMAND is split into words as a shell would, without a
// shell. Where the system has no process groups it returns Supported's
// error.
func Sessions(command string) (func() (core.Factory, func() error, error), error) {
	counted, err := CountedSessions(command)
	if err != nil {
		return nil, err
	}
	return func() (core.Factory, func() error, error) {
		f, end, _, err := counted()
		return f, end, err
	}, nil
}

// CountedSessions is Sessions, each session also returning what it
// counted beside its checks (door.Target's StartCounted): the fetches a
// child that declared itself stricter refused where the model allows
// them, and those it let through.
func CountedSessions(command string) (func() (core.Factory, func() error, func() door.Tally, error), error) {
	if err := Supported(); err != nil {
		return nil, err
	}
	argv, err := splitWords(command)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", command, err)
	}
	return func() (core.Factory, func() error, func() door.Tally, error) {
		s := &session{argv: argv, tally: &door.Counter{CountsPassed: true}}
		return s.open, s.end, func() door.Tally { return s.tally.Read(nil) }, nil
	}, nil
}

// session is one worker's child. Its factory is called from one goroutine
// at a time; after a hang the watchdog's Close kills the child from
// another, and end may come while a call the harness gave up on still
// reads, so the child is guarded. mu is never held across a read.
type session struct {
	argv  []string
	mu    sync.Mutex
	c     *child
	ended bool
	// noNet says the session's children run outside a network namespace:
	// the machine cannot make one. Everywhere else they run in one (SPEC
	// §14), whatever the world: a child that opens a connection itself
	// must never reach the machine's network, in a replay of a minimized
	// scenario (whose routes may all be gone) no more than in a campaign.
	noNet bool
	tally *door.Counter
}

// errEnded is the words for a factory called after its session ended.
var errEnded = errors.New("the session has ended")

// open is the session's core.Factory: sandbox/open on the session's
// child, started (and initialized) first if there is none or the last one
// broke.
func (s *session) open(g core.Grant, w core.World) (core.Sandbox, error) {
	rw, _ := w.(*refworld.World)
	c, fresh, err := s.child()
	if err != nil {
		return nil, err
	}
	defer c.opening.Add(-1)
	if fresh {
		if err := c.initialize(); err != nil {
			return nil, err
		}
	}
	ws := world{w}
	if c.bind != nil {
		// The namespace answers from this scenario's world from now on,
		// its building included; the child's world requests take the
		// same lock as the namespace's answers.
		c.bind.Use(rw)
		if rw != nil {
			ws = world{c.bind.World()}
		}
	}
	if err := c.call(ws, "sandbox/open", map[string]proto.Grant{"grant": wireGrant(g)}, nil); err != nil {
		return nil, err
	}
	sb := &sandbox{c: c, w: ws, bind: c.bind}
	if rw != nil && slices.Contains(c.stricter, core.OpFetch) {
		sb.rw = rw
		sb.shadowWorld = refworld.New(rw.Spec())
		sb.shadow = core.NewReference(g, sb.shadowWorld)
		sb.same, sb.tally, sb.counts = true, s.tally, s.tally.Opened()
	}
	return sb, nil
}

// child returns the session's child, counted as opening, and whether it is
// fresh (not yet initialized): a new one if there is none, the last one
// broke, or a call of an abandoned scenario is still in flight on it.
func (s *session) child() (c *child, fresh bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, false, errEnded
	}
	c = s.c
	if c != nil && c.usable() == nil && (c.busy() || c.opening.Load() > 0) {
		// A call of an abandoned scenario (a hang while opening, say) is
		// still in flight: that child cannot serve another.
		c.broken(fmt.Errorf("the sandbox hung"))
	}
	if c == nil || c.usable() != nil {
		var unavailable bool
		c, unavailable, err = startFor(s.argv, !s.noNet)
		s.noNet = s.noNet || unavailable
		if err != nil {
			return nil, false, err
		}
		s.c, fresh = c, true
	}
	c.opening.Add(1)
	return c, fresh, nil
}

// end shuts the session's child down, killing it at once if a call is in
// flight; it never waits for a read.
func (s *session) end() error {
	s.mu.Lock()
	c := s.c
	s.c, s.ended = nil, true
	s.mu.Unlock()
	if c != nil {
		c.shutdown()
	}
	return nil
}

// sandbox is one scenario's sandbox in the child. It is a core.Sandbox
// and an io.Closer: closing it while a call is in flight (the oracle's
// watchdog, on a hang) kills the child, which makes the call return.
type sandbox struct {
	c     *child
	w     world
	bind  *networld.Binding // the child's namespace's; nil: it has none
	usage core.Usage

	// shadow, for a child that declared its refusals of fetches stricter
	// (SPEC §12), is the reference over a copy of the scenario's world,
	// run beside the child op for op. Where the child refuses a fetch the
	// shadow allows, every result and usage having matched until then,
	// the refusal is counted, not judged (SPEC §14), and the shadow, which
	// answers as the model does, gives that op's result and every later
	// op's: the child's budgets have parted from the model's, so its
	// verdicts are not judged from then on. It is still asked every op up
	// to the one the model halts on, and what it does in the world (a
	// connection, a lookup) is judged.
	shadow      *core.Reference
	shadowWorld *refworld.World
	rw          *refworld.World // the scenario's world, told of stand-ins at the cut
	same        bool            // the child matched the shadow on every op so far
	halted      bool            // the shadow halted on an op before
	cut         bool            // the shadow answers from here on
	tally       *door.Counter
	counts      bool // a check's run, not its replay: it counts into tally
}

// Run implements core.Sandbox. A child that cannot answer makes Run panic
// with a *door.Failure: a total finding in the oracle's words.
//
// In a network namespace, what the child connects to during the op is
// journaled in the world as the op's (package networld).
func (s *sandbox) Run(op core.Op) core.Result {
	if s.shadow == nil {
		r, _ := s.run(op)
		return r
	}
	if s.cut {
		m := s.shadow.Run(op)
		if !s.halted {
			// Asked for what it does in the world, its verdict not judged,
			// up to the op the model halts on (whose effect, the bytes
			// past the budget, a halt permits); after it the child, which
			// charged less, is not asked: what it did would be judged
			// against a halt it never reached.
			s.run(op)
		}
		s.halted = s.halted || m.Hard
		if s.counts {
			s.tally.Modelled()
		}
		return m
	}
	r, lookups := s.run(op)
	j := len(s.shadowWorld.Journal())
	m := s.shadow.Run(op)
	let := allowed(m, s.halted)
	s.halted = s.halted || m.Hard
	if s.same && op.Kind == core.OpFetch && len(op.Args) == 2 && refusal(r) && let {
		s.cut = true
		s.rw.SetStandIns() // the shadow answers every op from here on
		if s.counts {
			seen := resolvedIn(s.shadowWorld.Journal()[j:]) // the model's answer, which the child got if it looked the host up
			if s.bind != nil && lookups.Count == 0 {
				seen = netip.Addr{}
			}
			reason := door.NetReasonSeen(op.Args[0], seen, lookups.All)
			if lookups.Internal {
				reason = door.ReasonInternalAnswer // it saw an answer the model's one lookup did not get
			}
			s.tally.Stricter(reason, judge.FormatOp(op), "")
		}
		return m
	}
	s.same = s.same && r == m && s.usage == s.shadow.Usage()
	if s.same && s.counts && op.Kind == core.OpFetch && let {
		s.tally.Passed(op.Kind)
	}
	return r
}

// refusal reports whether r refuses a fetch for what it asks: a denial
// that is no budget's halt.
func refusal(r core.Result) bool {
	return !r.Hard && (r.Kind == core.EgressDenied || r.Kind == core.EgressInternal || r.Kind == core.MalformedOp)
}

// allowed reports whether m, the model's result of a fetch, lets it
// through: ok or not found, or the output budget's halt on what it
// fetched, unless the model had halted before.
func allowed(m core.Result, halted bool) bool {
	return !m.Hard && (m.Kind == core.OK || m.Kind == core.NotFound) || m.Kind == core.MaxOutputBytes && !halted
}

// resolvedIn is the address the last lookup among entries answered, or
// the zero Addr.
func resolvedIn(entries []refworld.Entry) netip.Addr {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Call == refworld.CallResolve {
			return entries[i].Addr
		}
	}
	return netip.Addr{}
}

// run asks the child to run op, and returns its result and what its
// lookups answered during it.
func (s *sandbox) run(op core.Op) (_ core.Result, lookups networld.Lookups) {
	if s.bind != nil {
		s.bind.BeginOp(op)
		defer func() { lookups = s.bind.EndOp() }()
	}
	args := make([]proto.Bytes, len(op.Args))
	for i, a := range op.Args {
		args[i] = proto.Bytes(a)
	}
	var r proto.Result
	if err := s.c.call(s.w, "sandbox/run", map[string]proto.Op{"op": {Kind: proto.Bytes(op.Kind), Args: args}}, &r); err != nil {
		panic(&door.Failure{Err: err})
	}
	kind, ok := scenario.ParseKind(r.Kind)
	if !ok || kind == core.Invalid {
		panic(&door.Failure{Err: s.c.broken(fmt.Errorf("sandbox/run: a result of kind %q, which SPEC §2 does not list", r.Kind))})
	}
	s.usage = core.Usage{Ops: int64(r.Usage.Ops), Wall: int64(r.Usage.Wall), Output: int64(r.Usage.Output)}
	return core.Result{Kind: kind, Hard: r.Hard, Data: string(r.Data)}, lookups
}

// Usage implements core.Sandbox: the usage the last result reported, or,
// once the shadow answers, the shadow's.
func (s *sandbox) Usage() core.Usage {
	if s.cut {
		return s.shadow.Usage()
	}
	return s.usage
}

// Grant implements core.Sandbox: the grant as the child enforces it now
// (sandbox/grant), so grant-immutable compares what the child says before
// and after the run.
func (s *sandbox) Grant() core.GrantView {
	var g proto.Grant
	if err := s.c.call(nil, "sandbox/grant", struct{}{}, &g); err != nil {
		panic(&door.Failure{Err: err})
	}
	return grantView{g}
}

// Close implements io.Closer. The child serves the next scenario, unless
// a call is still in flight: then the sandbox hung, and the child is
// killed so that the call returns.
func (s *sandbox) Close() error {
	if s.shadow != nil {
		s.tally.Closed()
	}
	if s.c.busy() {
		s.c.broken(fmt.Errorf("the sandbox hung"))
	}
	return nil
}

// wireGrant is g as sandbox/open sends it.
func wireGrant(g core.Grant) proto.Grant {
	b := g.Budgets()
	return proto.Grant{
		FSRead: bytesOf(g.FSRead()), FSWrite: bytesOf(g.FSWrite()), Net: bytesOf(g.NetHosts()), Tool: bytesOf(g.Tools()),
		Budgets: proto.Budgets{Ops: proto.Int(b.MaxOps), Wall: proto.Int(b.MaxWall), Output: proto.Int(b.MaxOutputBytes)},
	}
}

func bytesOf(ss []string) []proto.Bytes {
	out := make([]proto.Bytes, len(ss))
	for i, s := range ss {
		out[i] = proto.Bytes(s)
	}
	return out
}

func stringsOf(bs []proto.Bytes) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
}

// grantView is a grant as the child reported it; every accessor hands out
// a copy.
type grantView struct{ g proto.Grant }

func (v grantView) FSRead() []string   { return stringsOf(v.g.FSRead) }
func (v grantView) FSWrite() []string  { return stringsOf(v.g.FSWrite) }
func (v grantView) NetHosts() []string { return stringsOf(v.g.Net) }
func (v grantView) Tools() []string    { return stringsOf(v.g.Tool) }
func (v grantView) Budgets() core.Budgets {
	b := v.g.Budgets
	return core.Budgets{MaxOps: int64(b.Ops), MaxWall: int64(b.Wall), MaxOutputBytes: int64(b.Output)}
}
