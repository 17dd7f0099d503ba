package dims

import (
	"math"
	"net/netip"
	"slices"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// recorder is the reference's world, keeping the bytes the latest effect
// produced: the data an op returns, or would have returned had the output
// budget let it.
type recorder struct {
	*refworld.World
	data string
	has  bool
}

func (r *recorder) keep(d string, ok bool) (string, bool) {
	if ok {
		r.data, r.has = d, true
	}
	return d, ok
}

func (r *recorder) Read(p string) (string, bool) { return r.keep(r.World.Read(p)) }
func (r *recorder) Fetch(h string, a netip.Addr, p string) (string, bool) {
	return r.keep(r.World.Fetch(h, a, p))
}
func (r *recorder) Call(n, in string) (string, bool) { return r.keep(r.World.Call(n, in)) }

// Count counts the points sc hits into c: it runs sc's ops on the
// reference sandbox over sc's world under g (sc's grant, built) and
// classes what reached each step of the pipeline. t, when not nil, is
// sc's world already prepared (refworld.Prepare of it).
//
// c keeps the memory Count uses for a scenario and reuses it for the
// next: count a campaign's scenarios into one Counts per goroutine.
func Count(sc *scenario.Scenario, g core.Grant, t *refworld.Template, c *Counts) {
	if t == nil {
		t = refworld.Prepare(sc.World)
	}
	s := c.counter()
	s.start(sc, g)
	defer s.finish()
	t.Renew(&s.refWorld) // in the memory of the scenario counted before
	s.begin(sc, core.NewReference(g, &s.world))
	for i := range sc.Steps {
		if c.step(sc.Steps[i].Op).Hard {
			return // every later op stops at the gate
		}
	}
}

// counter returns c's per-scenario state, made on first use.
func (c *Counts) counter() *counter {
	if c.run == nil {
		c.run = &counter{c: c}
	}
	return c.run
}

// begin readies s to count sc's ops as ref runs them over s.world, which
// wraps the world ref was built over.
func (s *counter) begin(sc *scenario.Scenario, ref *core.Reference) {
	s.ref = ref
	s.clock = sc.World.Clock
	s.t0, _ = s.clock.At(0)
	s.clockShape = clockShape(s.clock)
	// The reference journals at most two calls an op: room for them all
	// at once saves the appends' doublings.
	s.world.Reserve(2 * len(sc.Steps))
}

// step runs op on the reference and counts the points it hits. The
// reference has not halted.
func (c *Counts) step(op core.Op) core.Result {
	s := c.run
	w, b := &s.world, s.budgets
	before := s.ref.Usage()
	reads := w.ClockReads()
	j := w.JournalLen()
	w.has = false
	res := s.ref.Run(op)
	st := edgeState{ops: before.Ops + 1}
	var top bool
	st.wall, st.wallPast, top = wallAt(s.clock, reads, s.t0)
	c.budget(0, b.MaxOps, st.ops, true)
	if st.ops > b.MaxOps {
		c.pairs(b, st, 0, false)
		return res // no clock read, no dispatch
	}
	if s.clockShape >= 0 {
		c.hit(baseClock + s.clockShape)
	}
	if top {
		c.hit(baseClock + ClockPastTop)
	}
	c.budget(1, b.MaxWall, st.wall, !st.wallPast)
	if res.Kind == core.MaxWall {
		c.pairs(b, st, 0, false)
		return res
	}
	c.args(op, s)
	for _, e := range w.Journal()[j:] {
		if e.Call == refworld.CallResolve {
			c.address(s.spelling(e.Name), e.Addr)
		}
	}
	if !w.has { // no effect produced bytes: nothing to charge, not even 0
		c.pairs(b, st, 0, false)
		return res
	}
	n := int64(len(w.data))
	out := satAdd(before.Output, n)
	c.budget(2, b.MaxOutputBytes, out, true)
	c.pairs(b, st, out, true)
	if n == 0 {
		return res
	}
	cls := c.class(w.data)
	c.hit(baseBytes + ArgData*numByteClasses + cls)
	if cls == MultiByte {
		switch {
		case out == b.MaxOutputBytes:
			c.hit(baseEdgeData)
		case b.MaxOutputBytes < math.MaxInt64 && out == b.MaxOutputBytes+1:
			c.hit(baseEdgeData + 1)
		}
	}
	return res
}

// edgeState is where an op's usage lands against the budgets: ops and
// wall as the op charges them (wall as the clock would answer, even when
// max_ops stops the op first).
type edgeState struct {
	ops, wall int64
	wallPast  bool // the tick is past 2^63−1, or the difference past int64
}

// budget counts budget k's points for usage used against limit; with
// !valid (a wall int64 cannot hold), only the budget's own value counts.
func (c *Counts) budget(k int, limit, used int64, valid bool) {
	base := baseBudget + k*numBudgetPoints
	switch {
	case limit == 0:
		c.hit(base + BudgetZero)
	case limit == math.MaxInt64:
		c.hit(base + BudgetMax)
	}
	switch {
	case !valid:
	case used < limit:
		c.hit(base + BudgetBelow)
	case used == limit: // 0 too: an empty effect, or a still clock, on a budget of 0
		c.hit(base + BudgetAt)
	case limit < math.MaxInt64 && used == limit+1:
		c.hit(base + BudgetOver)
	}
}

// edge is a budget's state for the pair points: 0 below it, 1 exactly at
// it, 2 past it (by any amount, or a wall int64 cannot hold): which of two
// budgets wins is decided wherever both are at or past their limit.
func edge(used, limit int64, past bool) int {
	switch {
	case past || used > limit:
		return 2
	case used == limit:
		return 1
	}
	return 0
}

// pairs counts the budget-pair points of one op; out is the output total
// the op's bytes would make, when hasOut.
func (c *Counts) pairs(b core.Budgets, st edgeState, out int64, hasOut bool) {
	o, w, x := edge(st.ops, b.MaxOps, false), edge(st.wall, b.MaxWall, st.wallPast), 0
	if hasOut {
		x = edge(out, b.MaxOutputBytes, false)
	}
	if o != 0 && w != 0 {
		c.hit(basePair + (o-1)*2 + (w - 1)) // ops at/over × wall at/over
	}
	if o == 1 && x != 0 {
		c.hit(basePair + 4 + x - 1)
	}
	if w == 1 && x != 0 {
		c.hit(basePair + 6 + x - 1)
	}
	if o == 1 && w == 1 && x != 0 {
		c.hit(basePair + 8 + x - 1)
	}
}

// wallAt returns the wall the clock's next answer gives, after reads
// reads; past=true when int64 cannot hold it, top=true when the tick
// itself is past 2^63−1 (SPEC §7).
func wallAt(clock scenario.TickClock, reads, t0 int64) (wall int64, past, top bool) {
	now, ok := clock.At(reads)
	if !ok {
		return math.MaxInt64, true, true
	}
	d := now - t0
	return d, now >= t0 && d < 0 || now < t0 && d >= 0, false
}

func clockShape(c scenario.TickClock) int {
	switch {
	case c.Step == 0:
		return ClockStep0
	case c.Step == 1:
		return ClockStep1
	case c.Step >= largeStep:
		return ClockStepLarge
	case c.Step < 0:
		return ClockStepNegative
	}
	return -1
}

// counter is what Count needs of one scenario besides the counts: the
// recording world, the grant's roots and hosts, and the spellings of the
// hosts resolved so far. Counts keeps one and Count reuses its memory
// scenario after scenario.
type counter struct {
	c           *Counts
	ref         *core.Reference
	world       recorder
	refWorld    refworld.World // the world the recorder wraps when Count runs the scenario, renewed for each
	budgets     core.Budgets
	clock       scenario.TickClock
	t0          int64
	clockShape  int // the clock's shape point, or -1
	read, write rootSet
	hosts       []string             // the granted hosts
	spellings   []int                // spellings[i] is hosts[i]'s spelling, or -1 before it resolved
	dns         []scenario.DNSRecord // the world's dns lines
}

// start readies s for counting sc, run under g over a world started
// from t.
func (s *counter) start(sc *scenario.Scenario, g core.Grant) {
	spec := g.Spec() // the grant's lists, copied in one allocation
	s.budgets = spec.Budgets
	s.read = newRootSet(s.read, spec.FSRead)
	s.write = newRootSet(s.write, spec.FSWrite)
	s.hosts = spec.NetHosts
	s.spellings = s.spellings[:0]
	for range s.hosts {
		s.spellings = append(s.spellings, -1)
	}
	s.dns = sc.World.DNS
	s.world = recorder{World: &s.refWorld}
}

// finish lets go of the scenario's world, data and grant, keeping the
// world's memory for the next.
func (s *counter) finish() {
	noWorld.Renew(&s.refWorld)
	s.world, s.ref = recorder{}, nil
	s.hosts, s.dns = nil, nil
}

// noWorld is the empty world a counter is left in between scenarios.
var noWorld = refworld.Prepare(scenario.WorldSpec{})

// spelling is the spelling of granted host h as resolved (see spelling),
// found once a scenario: a scenario fetches from the same few hosts.
func (s *counter) spelling(h string) int {
	i := slices.Index(s.hosts, h)
	if i < 0 { // the reference resolves granted hosts only
		return spelling(h, s.dns)
	}
	if s.spellings[i] < 0 {
		s.spellings[i] = spelling(h, s.dns)
	}
	return s.spellings[i]
}

// Argument positions whose bytes are classed, by op kind, in argument
// order.
var (
	readArgs  = []int{ArgFSPath}
	writeArgs = []int{ArgFSPath, ArgWriteData}
	fetchArgs = []int{ArgHost, ArgFetchPath}
	toolArgs  = []int{ArgToolName, ArgToolInput}
)

// argPositions returns the positions of kind's arguments, nil for a kind
// that is none of the four.
func argPositions(kind string) []int {
	switch kind {
	case core.OpRead:
		return readArgs
	case core.OpWrite:
		return writeArgs
	case core.OpFetch:
		return fetchArgs
	case core.OpTool:
		return toolArgs
	}
	return nil
}

// args counts the byte classes of op's kind and arguments and, for the
// ops that reach their checks, the path or host shape.
func (c *Counts) args(op core.Op, s *counter) {
	c.hit(baseBytes + ArgKind*numByteClasses + c.class(op.Kind))
	pos := argPositions(op.Kind)
	// The classes say whether the op is well formed (spec.WellFormed,
	// SPEC §5 step 3): an argument is when it is ASCII or multi-byte
	// UTF-8, neither NUL nor invalid. Each argument is scanned once.
	wellFormed := len(pos) > 0 && len(op.Args) == len(pos)
	var pathClass int
	for i, a := range op.Args[:min(len(op.Args), len(pos))] {
		cls := c.class(a)
		c.hit(baseBytes + pos[i]*numByteClasses + cls)
		wellFormed = wellFormed && (cls == ASCII || cls == MultiByte)
		if i == 0 {
			pathClass = cls // an fs op's path
		}
	}
	if !wellFormed {
		return
	}
	switch op.Kind {
	case core.OpRead:
		c.path(op.Args[0], pathClass, s.read)
	case core.OpWrite:
		c.path(op.Args[0], pathClass, s.write)
	case core.OpFetch:
		c.hit(baseHost + ClassifyHost(op.Args[0], s.hosts))
	}
}

// path counts the shape of fs path p, whose ByteClass is class.
func (c *Counts) path(p string, class int, roots rootSet) {
	shape, slash, named := roots.classify(p, class)
	if !named {
		c.hit(baseLoose + shape)
		return
	}
	g := 0
	if !slash {
		g = 1
	}
	c.hit(basePath + g*numPathShapes + shape)
}

// spelling is the Spelling of a host the resolver answered: Name when a
// dns line of the world answers it (it wins over a literal, SPEC §6),
// else the spelling of the literal the resolver read, one trailing dot
// and ASCII case ignored as it ignores them.
func spelling(host string, dns []scenario.DNSRecord) int {
	h := spec.NormalizeHost(host)
	for _, r := range dns {
		if spec.NormalizeHost(r.Host) == h {
			return iprange.Name
		}
	}
	return Spelling(h)
}

// address counts the range points of an address a host spelled sp
// resolved to: the IPv4 ranges' points of the IPv4 address it carries
// (SPEC §6's Unmap), spelled in its embedding form when a literal spelled
// it in IPv6, and the IPv6 ranges' and embedding prefixes' points of the
// address itself.
func (c *Counts) address(sp int, a netip.Addr) {
	a = a.WithZone("")
	u, sp4 := spec.Unmap(a), sp
	if form, ok := iprange.Form(a); ok && sp != iprange.Name {
		sp4 = form
	}
	for r, p := range ranges {
		x, s := a, sp
		if p.Addr().Is4() {
			x, s = u, sp4
		}
		if p.Addr().Is4() != x.Is4() {
			continue
		}
		pos, ok := position(x, p, rangeEdges[r])
		if !ok {
			continue
		}
		c.hitRange(r, p, pos, s)
	}
}

// hitRange counts range r's point at position pos in spelling sp, if its
// family has that spelling.
func (c *Counts) hitRange(r int, p netip.Prefix, pos, sp int) {
	sps := iprange.SpellingsOf(p)
	for k, s := range sps {
		if s == sp {
			c.hit(rangeBase[r] + pos*len(sps) + k)
			if pos == Low && p.Bits() == p.Addr().BitLen() {
				c.hit(rangeBase[r] + High*len(sps) + k) // a one-address range: both edges
			}
		}
	}
}

func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}
