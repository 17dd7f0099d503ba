package oracle

import (
	"net/netip"
	"path"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Test doubles: each is the reference sandbox broken in exactly one way,
// so that exactly one invariant (or, where the SPEC makes one imply
// another, a named pair) must catch it.

// wrapped runs the reference and lets a double rewrite what it did.
type wrapped struct {
	*core.Reference
	world core.World
	grant core.Grant
}

func wrap(g core.Grant, w core.World) wrapped {
	return wrapped{core.NewReference(g, w), w, g}
}

// peekOnDenial reads an authorized file whenever it refuses an op: the
// read is allowed by the grant, but a denial must touch nothing.
type peekOnDenial struct{ wrapped }

func (s peekOnDenial) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if r.Kind == core.FSWriteDenied {
		s.world.Read("/work/data.txt")
	}
	return r
}

// readsSibling also reads /workshop/secret whenever a read succeeds: the
// result is right, the journal shows an unauthorized read.
type readsSibling struct{ wrapped }

func (s readsSibling) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if r.Kind == core.OK && op.Kind == core.OpRead {
		s.world.Read("/workshop/secret")
	}
	return r
}

// resolvesFirst resolves every fs op's path before its checks run: the
// lookup-before-allowlist of files (SPEC §13). A path the allow-list
// refuses is resolved all the same, so the world was asked about it.
type resolvesFirst struct{ wrapped }

func (s resolvesFirst) Run(op core.Op) core.Result {
	if (op.Kind == core.OpRead || op.Kind == core.OpWrite) && len(op.Args) > 0 {
		s.world.Realpath(op.Args[0])
	}
	return s.Reference.Run(op)
}

// resolvesAnother resolves /work/data.txt, a path it may read, whenever it
// refuses a read: the realpath is authorized, but it is not the denied
// op's own, and a denial keeps no other.
type resolvesAnother struct{ wrapped }

func (s resolvesAnother) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if r.Kind == core.FSReadDenied {
		s.world.Realpath("/work/data.txt")
	}
	return r
}

// loopbackFetcher is a world that sends every fetch to 127.0.0.1, whatever
// address the sandbox passes: a sandbox that checked one address and
// connected to another.
type loopbackFetcher struct{ core.World }

func (w loopbackFetcher) Fetch(host string, _ netip.Addr, path string) (string, bool) {
	return w.World.Fetch(host, netip.MustParseAddr("127.0.0.1"), path)
}

// chargesWhileHalted keeps counting ops after its halt.
type chargesWhileHalted struct {
	wrapped
	extra *int64
}

func (s chargesWhileHalted) Run(op core.Op) core.Result {
	before := s.Reference.Usage()
	r := s.Reference.Run(op)
	if r.Hard && s.Reference.Usage() == before { // answered at the halt gate, which charges nothing
		*s.extra++
	}
	return r
}

func (s chargesWhileHalted) Usage() core.Usage {
	u := s.Reference.Usage()
	u.Ops += *s.extra
	return u
}

// uncountedDenials does not count refused ops in its usage, though it still
// halts on time.
type uncountedDenials struct {
	wrapped
	denied *int64
}

func (s uncountedDenials) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if isDenial(r.Kind) && !r.Hard {
		*s.denied++
	}
	return r
}

func (s uncountedDenials) Usage() core.Usage {
	u := s.Reference.Usage()
	u.Ops -= *s.denied
	return u
}

// ignoresOutputBudget is the reference built over a copy of its grant with
// no output limit: it returns every byte it is asked for.
func ignoresOutputBudget(g core.Grant, w core.World) core.Sandbox {
	b := g.Budgets()
	b.MaxOutputBytes = 1 << 62
	wide := must.Grant(core.GrantSpec{FSRead: g.FSRead(), FSWrite: g.FSWrite(), NetHosts: g.NetHosts(), Tools: g.Tools(), Budgets: b})
	return core.NewReference(wide, w)
}

// notFoundOutside says not_found instead of fs_read_denied.
type notFoundOutside struct{ wrapped }

func (s notFoundOutside) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if r.Kind == core.FSReadDenied {
		r.Kind = core.NotFound
	}
	return r
}

// flakyFactory builds sandboxes whose first instance reads every successful
// read's path a second time: a sandbox with state that outlives it.
func flakyFactory() core.Factory {
	built := 0
	return func(g core.Grant, w core.World) (core.Sandbox, error) {
		built++
		return flaky{wrap(g, w), built == 1}, nil
	}
}

type flaky struct {
	wrapped
	first bool
}

func (s flaky) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if s.first && r.Kind == core.OK && op.Kind == core.OpRead {
		s.world.Read(op.Args[0])
	}
	return r
}

// leakyGrant hands out its own slices.
type leakyGrant struct {
	wrapped
	view *leakyView
}

type leakyView struct {
	fsRead, fsWrite, hosts, tools []string
	budgets                       core.Budgets
}

func (v *leakyView) FSRead() []string      { return v.fsRead }
func (v *leakyView) FSWrite() []string     { return v.fsWrite }
func (v *leakyView) NetHosts() []string    { return v.hosts }
func (v *leakyView) Tools() []string       { return v.tools }
func (v *leakyView) Budgets() core.Budgets { return v.budgets }

func (s leakyGrant) Grant() core.GrantView { return s.view }

func newLeakyGrant(g core.Grant, w core.World) core.Sandbox {
	return leakyGrant{wrap(g, w), &leakyView{g.FSRead(), g.FSWrite(), g.NetHosts(), g.Tools(), g.Budgets()}}
}

// freshViews is correct: every Grant call hands out a new view that holds
// copies, so scribbling on one view changes neither the authority nor the
// next view.
type freshViews struct{ wrapped }

func (s freshViews) Grant() core.GrantView {
	g := s.Reference.Grant()
	return &leakyView{g.FSRead(), g.FSWrite(), g.NetHosts(), g.Tools(), g.Budgets()}
}

// panicsOnTools panics on every tool op.
type panicsOnTools struct{ wrapped }

func (s panicsOnTools) Run(op core.Op) core.Result {
	if op.Kind == core.OpTool {
		panic("tool runner crashed")
	}
	return s.Reference.Run(op)
}

// hangsOnTools never returns from a tool op.
type hangsOnTools struct {
	wrapped
	release chan struct{}
}

func (s hangsOnTools) Run(op core.Op) core.Result {
	if op.Kind == core.OpTool {
		<-s.release
	}
	return s.Reference.Run(op)
}

// unlistedKind answers every op with a kind SPEC §2 does not list, as a
// Go sandbox with a kind of its own, or a corrupted one, would.
type unlistedKind struct{ wrapped }

func (s unlistedKind) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	r.Kind = core.NumKinds + 100
	return r
}

// infallible makes a Factory of a constructor that cannot fail.
func infallible(build func(core.Grant, core.World) core.Sandbox) core.Factory {
	return func(g core.Grant, w core.World) (core.Sandbox, error) { return build(g, w), nil }
}

// testCase is the case of a scenario with grant g, world ws and ops, their
// classes Unlabelled.
func testCase(g core.Grant, ws scenario.WorldSpec, ops []core.Op) checkCase {
	sc := &scenario.Scenario{Grant: g.Spec(), World: ws, Steps: make([]scenario.Step, len(ops))}
	for i, op := range ops {
		sc.Steps[i].Op = op
	}
	return checkCase{Scenario: sc, Grant: g}
}

// check is Check of a case built in Go.
func check(f core.Factory, c checkCase, cov *Coverage, opt Options) []Finding {
	return checkObserved(f, c, cov, opt, nil)
}

// checkObserved is check with observe called after every op of the
// watched run.
func checkObserved(f core.Factory, c checkCase, cov *Coverage, opt Options, observe func(engine.StepReport)) []Finding {
	k := newChecker(f, opt, observe)
	defer k.Close()
	return k.checkOn(f, c, cov)
}

// refusesDocumentation refuses a fetch whose host resolves into
// 203.0.113.0/24 as internal, as a guard that refuses every special-purpose
// range does, after resolving it as a correct one would.
type refusesDocumentation struct{ wrapped }

func (s refusesDocumentation) Run(op core.Op) core.Result {
	if op.Kind == core.OpFetch && len(op.Args) == 2 && slices.Contains(s.grant.NetHosts(), op.Args[0]) {
		if a := s.world.Resolve(op.Args[0]); netip.MustParsePrefix("203.0.113.0/24").Contains(a) {
			s.Reference.Run(core.Op{Kind: core.OpRead, Args: []string{"/"}}) // charged as the op, and refused without an effect
			return core.Result{Kind: core.EgressInternal}
		}
	}
	return s.Reference.Run(op)
}

// alsoFetches fetches another host after each fetch, as a client that
// follows a redirect it was not asked to.
type alsoFetches struct{ wrapped }

func (s alsoFetches) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if op.Kind == core.OpFetch {
		s.world.Fetch("evil.test", s.world.Resolve("evil.test"), "/")
	}
	return r
}

// resolvesThenWrites resolves and writes the path of every write, and
// answers ok: a sandbox that checks nothing.
type resolvesThenWrites struct{ wrapped }

func (s resolvesThenWrites) Run(op core.Op) core.Result {
	if op.Kind != core.OpWrite {
		return s.Reference.Run(op)
	}
	s.Reference.Run(core.Op{Kind: "sbxfuzz:charge"})
	r, _ := s.world.Realpath(op.Args[0])
	s.world.Write(r, op.Args[1])
	return core.Result{Kind: core.OK}
}

// refusesFetches refuses every granted fetch as internal, as a guard
// stricter than SPEC §6 everywhere would.
type refusesFetches struct{ wrapped }

func (s refusesFetches) Run(op core.Op) core.Result {
	if op.Kind == core.OpFetch && len(op.Args) == 2 && slices.Contains(s.grant.NetHosts(), op.Args[0]) {
		s.Reference.Run(core.Op{Kind: core.OpRead, Args: []string{"/"}}) // charged as the op, and refused without an effect
		return core.Result{Kind: core.EgressInternal}
	}
	return s.Reference.Run(op)
}

// emptyReads returns a successful read with no data: the verdict is the
// model's, the data is not.
type emptyReads struct{ wrapped }

func (s emptyReads) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if op.Kind == core.OpRead && r.Kind == core.OK {
		r.Data = ""
	}
	return r
}

// cutsLongReads cuts a read's data after 300 bytes, marking the cut, as
// agent file tools that shorten long lines do.
type cutsLongReads struct{ wrapped }

func (s cutsLongReads) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if op.Kind == core.OpRead && len(r.Data) > 300 {
		r.Data = r.Data[:300] + "..."
	}
	return r
}

// decodesWrites writes other bytes than it is given, answering ok as the
// model does, as a file tool that base64-decodes what it is told to write
// to a name it takes for binary does (deepagents, to a ".png").
type decodesWrites struct{ wrapped }

func (s decodesWrites) Run(op core.Op) core.Result {
	if op.Kind == core.OpWrite && len(op.Args) == 2 {
		op = core.Op{Kind: op.Kind, Args: []string{op.Args[0], strings.ToUpper(op.Args[1])}}
	}
	return s.Reference.Run(op)
}

// writesAsAsked checks a write as the reference does, then writes the op's
// data upper-cased to the path as the op spells it, unresolved: the world
// stores it where that path leads, the file the model writes.
type writesAsAsked struct{ wrapped }

func (s writesAsAsked) Run(op core.Op) core.Result {
	if op.Kind != core.OpWrite || len(op.Args) != 2 || !s.grant.MayWrite(op.Args[0]) {
		return s.Reference.Run(op)
	}
	s.Reference.Run(core.Op{Kind: "sbxfuzz:charge"}) // an unknown op: charged as this one, no effect
	s.world.Realpath(op.Args[0])
	s.world.Write(op.Args[0], strings.ToUpper(op.Args[1]))
	return core.Result{Kind: core.OK}
}

// emptiesWrites writes no bytes where an allowed write's data should go,
// as a tool that decodes a text that is no base64 does.
type emptiesWrites struct{ wrapped }

func (s emptiesWrites) Run(op core.Op) core.Result {
	if op.Kind == core.OpWrite && len(op.Args) == 2 {
		op = core.Op{Kind: op.Kind, Args: []string{op.Args[0], ""}}
	}
	return s.Reference.Run(op)
}

// failsAfterMkdir makes the directory of every write and then refuses
// it, as a tool whose write fails after it made the file's parents does.
type failsAfterMkdir struct{ wrapped }

func (s failsAfterMkdir) Run(op core.Op) core.Result {
	if op.Kind != core.OpWrite || len(op.Args) != 2 {
		return s.Reference.Run(op)
	}
	s.Reference.Run(core.Op{Kind: core.OpWrite, Args: []string{"/nowhere/x", ""}}) // charged as the op, refused before any world call
	s.world.Write(path.Dir(op.Args[0])+"/", "")
	return core.Result{Kind: core.FSWriteDenied}
}

// makesDirOnDenial makes the directory a denied write would have gone
// into, as a tool that makes a file's parents before it asks does.
type makesDirOnDenial struct{ wrapped }

func (s makesDirOnDenial) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if op.Kind == core.OpWrite && r.Kind != core.OK {
		s.world.Write(path.Dir(op.Args[0])+"/", "")
	}
	return r
}

// writesAboveRoot makes a directory above the world's root on a write, as
// a real sandbox that climbs out of the tree it was given does (its door
// journals it so).
type writesAboveRoot struct{ wrapped }

func (s writesAboveRoot) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if op.Kind == core.OpWrite {
		s.world.Write("/../d/", "")
	}
	return r
}

// trimsPaths trims white space off a file op's path before it runs it.
type trimsPaths struct{ wrapped }

func (s trimsPaths) Run(op core.Op) core.Result {
	if (op.Kind == core.OpRead || op.Kind == core.OpWrite) && len(op.Args) > 0 {
		op.Args = append([]string{strings.TrimSpace(op.Args[0])}, op.Args[1:]...)
	}
	return s.Reference.Run(op)
}

// writesNothing answers an allowed write ok, charged as the model
// charges it, and writes nothing; elsewhere set, it writes the bytes to
// the path with ".bak" after it, under the same root.
type writesNothing struct {
	wrapped
	elsewhere bool
}

func (s writesNothing) Run(op core.Op) core.Result {
	if op.Kind != core.OpWrite || len(op.Args) != 2 || !s.grant.MayWrite(op.Args[0]) {
		return s.Reference.Run(op)
	}
	s.Reference.Run(core.Op{Kind: "sbxfuzz:charge"}) // an unknown op: charged as this one, no effect
	if s.elsewhere {
		s.world.Write(op.Args[0]+".bak", op.Args[1])
	}
	return core.Result{Kind: core.OK}
}

// rotatedViews hands out a fresh view of copies on every Grant call, each
// list turned by one more place than the last: the same authority read in
// another order, as a view built from a map's keys each time reads.
type rotatedViews struct {
	wrapped
	turns *int
}

func (s rotatedViews) Grant() core.GrantView {
	g := s.Reference.Grant()
	*s.turns++
	turn := func(l []string) []string {
		if len(l) == 0 {
			return l
		}
		k := *s.turns % len(l)
		return append(slices.Clone(l[k:]), l[:k]...)
	}
	return &leakyView{turn(g.FSRead()), turn(g.FSWrite()), turn(g.NetHosts()), turn(g.Tools()), g.Budgets()}
}
