package dims

import (
	"math"
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// recorder is the reference's world, keeping the bytes the latest effect
// produced: the data an op returns, or would have returned had the output
// budget let it.
type recorder struct {
	*core.RefWorld
	data string
	has  bool
}

func (r *recorder) keep(d string, ok bool) (string, bool) {
	if ok {
		r.data, r.has = d, true
	}
	return d, ok
}

func (r *recorder) Read(p string) (string, bool) { return r.keep(r.RefWorld.Read(p)) }
func (r *recorder) Fetch(h string, a netip.Addr, p string) (string, bool) {
	return r.keep(r.RefWorld.Fetch(h, a, p))
}
func (r *recorder) Call(n, in string) (string, bool) { return r.keep(r.RefWorld.Call(n, in)) }

// Count counts the points sc hits into c: it runs sc's ops on the
// reference sandbox over sc's world under g (sc's grant, built) and
// classes what reached each step of the pipeline. t, when not nil, is
// sc's world already prepared (core.PrepareWorld of it).
func Count(sc *scenario.Scenario, g core.Grant, t *core.WorldTemplate, c *Counts) {
	if t == nil {
		t = core.PrepareWorld(sc.World)
	}
	w := &recorder{RefWorld: t.New()}
	ref := core.NewReference(g, w)
	gs := grantSets{read: newRootSet(g.FSRead()), write: newRootSet(g.FSWrite()), hosts: g.NetHosts()}
	b := g.Budgets()
	clock := sc.World.Clock
	t0, _ := clock.At(0)
	countClockShape := clockShape(clock)
	for i := range sc.Steps {
		if _, halted := ref.Halted(); halted {
			return // every later op stops at the gate
		}
		op := sc.Steps[i].Op
		before := ref.Usage()
		reads := w.ClockReads()
		j := w.JournalLen()
		w.has = false
		res := ref.Run(op)
		st := edgeState{ops: before.Ops + 1}
		var top bool
		st.wall, st.wallPast, top = wallAt(clock, reads, t0)
		c.budget(0, b.MaxOps, st.ops, true)
		if st.ops > b.MaxOps {
			c.pairs(b, st, 0, false)
			continue // no clock read, no dispatch
		}
		if countClockShape >= 0 {
			c.hit(baseClock + countClockShape)
		}
		if top {
			c.hit(baseClock + ClockPastTop)
		}
		c.budget(1, b.MaxWall, st.wall, !st.wallPast)
		if res.Kind == core.MaxWall {
			c.pairs(b, st, 0, false)
			continue
		}
		c.args(op, &gs)
		for _, e := range w.Journal()[j:] {
			if e.Call == core.CallResolve {
				c.address(spelling(e.Name, sc.World.DNS), e.Addr)
			}
		}
		if !w.has { // no effect produced bytes: nothing to charge, not even 0
			c.pairs(b, st, 0, false)
			continue
		}
		n := int64(len(w.data))
		out := satAdd(before.Output, n)
		c.budget(2, b.MaxOutputBytes, out, true)
		c.pairs(b, st, out, true)
		if n == 0 {
			continue
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
	}
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
func wallAt(clock core.TickClock, reads, t0 int64) (wall int64, past, top bool) {
	now, ok := clock.At(reads)
	if !ok {
		return math.MaxInt64, true, true
	}
	d := now - t0
	return d, now >= t0 && d < 0 || now < t0 && d >= 0, false
}

func clockShape(c core.TickClock) int {
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

// grantSets is what the shape points read of a grant, made once a
// scenario.
type grantSets struct {
	read, write rootSet
	hosts       []string
}

// args counts the byte classes of op's kind and arguments and, for the
// ops that reach their checks, the path or host shape.
func (c *Counts) args(op core.Op, g *grantSets) {
	c.hit(baseBytes + ArgKind*numByteClasses + c.class(op.Kind))
	var pos []int
	switch op.Kind {
	case core.OpRead:
		pos = []int{ArgFSPath}
	case core.OpWrite:
		pos = []int{ArgFSPath, ArgWriteData}
	case core.OpFetch:
		pos = []int{ArgHost, ArgFetchPath}
	case core.OpTool:
		pos = []int{ArgToolName, ArgToolInput}
	}
	for i, a := range op.Args {
		if i < len(pos) {
			c.hit(baseBytes + pos[i]*numByteClasses + c.class(a))
		}
	}
	if !core.WellFormed(op.Args, len(pos)) || len(pos) == 0 {
		return
	}
	switch op.Kind {
	case core.OpRead:
		c.path(op.Args[0], g.read)
	case core.OpWrite:
		c.path(op.Args[0], g.write)
	case core.OpFetch:
		c.hit(baseHost + ClassifyHost(op.Args[0], g.hosts))
	}
}

func (c *Counts) path(p string, roots rootSet) {
	shape, slash, named := roots.classify(p)
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
func spelling(host string, dns []core.DNSRecord) int {
	h := core.NormalizeHost(host)
	for _, r := range dns {
		if core.NormalizeHost(r.Host) == h {
			return Name
		}
	}
	return Spelling(h)
}

// address counts the range points of an address a host spelled sp
// resolved to.
func (c *Counts) address(sp int, a netip.Addr) {
	a = core.Unmap(a)
	for r, p := range ranges {
		if p.Addr().Is4() != a.Is4() {
			continue
		}
		pos, ok := position(a, p, rangeEdges[r])
		if !ok {
			continue
		}
		sps := SpellingsOf(p)
		for k, s := range sps {
			if s == sp {
				c.hit(rangeBase[r] + pos*len(sps) + k)
				if pos == Low && p.Bits() == p.Addr().BitLen() {
					c.hit(rangeBase[r] + High*len(sps) + k) // a one-address range: both edges
				}
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
