// Package outside is a sandbox for an AI agent's tool calls as a team
// outside sbxfuzz writes one: from docs/SPEC.md and the module's public
// API only, in a module of its own that requires
// github.com/sbxfuzz/sbxfuzz like any other dependency. Its tests
// (sandbox_test.go) fuzz it with package sbxtest, and one-defect variants
// of it (variants.go) grade those tests: each must be caught.
//
// The sandbox follows SPEC §5 step by step. Each decision a sandbox could
// get wrong is one field of rules, so that a variant changes exactly one.
package outside

import (
	"math"
	"net/netip"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// rules are the decisions of SPEC §2–§6 that real sandboxes get wrong,
// as this sandbox takes them: correct holds the SPEC's, each variant one
// wrong one.
type rules struct {
	traversal   func(p string) bool                    // a ".." segment (SPEC §4)
	under       func(p string, roots []string) bool    // the allow-list (SPEC §4)
	granted     func(name string, names []string) bool // hosts and tools: exact (SPEC §2)
	internal    func(a netip.Addr) bool                // internal addresses (SPEC §6)
	fits        func(used, n, budget int64) bool       // n more bytes of output (SPEC §5 step 5)
	wallFits    func(wall, budget int64) bool          // the wall so far (SPEC §5 step 2)
	recheck     bool                                   // the resolved path judged by the roots too
	chargeFirst bool                                   // the op charged before dispatch
	latch       bool                                   // a hard result halts for good
	resolveOnce bool                                   // the fetch goes to the address checked
}

// correct is SPEC §2–§6 as written.
var correct = rules{
	traversal: hasDotDot,
	under:     underRoot,
	granted:   exactly,
	internal:  internalAddr,
	// Compared as the room left, so that a huge n cannot overflow.
	fits:        func(used, n, budget int64) bool { return n <= budget-used },
	wallFits:    func(wall, budget int64) bool { return wall <= budget },
	recheck:     true,
	chargeFirst: true,
	latch:       true,
	resolveOnce: true,
}

// New builds the sandbox over w that enforces g. It reads the clock once,
// for t0, and touches nothing else of the world.
func New(g core.Grant, w core.World) (core.Sandbox, error) { return build(correct, g, w), nil }

// sandbox enforces one grant over one world. It is not safe for
// concurrent use: ops run one at a time.
type sandbox struct {
	rules
	grant                 core.Grant
	world                 core.World
	readRoots, writeRoots []string
	hosts, tools          []string
	budgets               core.Budgets
	t0                    int64
	used                  core.Usage
	halted                core.Kind // core.Invalid while running
}

func build(r rules, g core.Grant, w core.World) *sandbox {
	t0, _ := w.Now() // the first tick: it always fits
	return &sandbox{rules: r, grant: g, world: w, t0: t0,
		readRoots: g.FSRead(), writeRoots: g.FSWrite(), hosts: g.NetHosts(), tools: g.Tools(), budgets: g.Budgets()}
}

// Usage returns what has been charged so far.
func (s *sandbox) Usage() core.Usage { return s.used }

// Grant returns the grant, whose accessors hand out copies.
func (s *sandbox) Grant() core.GrantView { return s.grant }

// Run executes one op in SPEC §5's order.
func (s *sandbox) Run(op core.Op) core.Result {
	if s.halted != core.Invalid {
		return core.Result{Kind: s.halted, Hard: true}
	}
	if s.chargeFirst {
		if r, stop := s.charge(); stop {
			return r
		}
	}
	if k := dispatch(op); k != core.Invalid {
		return core.Result{Kind: k}
	}
	if !s.chargeFirst {
		if r, stop := s.charge(); stop {
			return r
		}
	}
	switch op.Kind {
	case core.OpRead:
		return s.read(op.Args[0])
	case core.OpWrite:
		return s.write(op.Args[0], op.Args[1])
	case core.OpFetch:
		return s.fetch(op.Args[0], op.Args[1])
	}
	return s.call(op.Args[0], op.Args[1])
}

// charge is step 2: one op, then the clock.
func (s *sandbox) charge() (core.Result, bool) {
	s.used.Ops++
	if s.used.Ops > s.budgets.MaxOps {
		return s.halt(core.MaxOps), true
	}
	tick, fits := s.world.Now()
	var over bool
	s.used.Wall, over = elapsed(s.t0, tick)
	if !fits || over || !s.wallFits(s.used.Wall, s.budgets.MaxWall) {
		return s.halt(core.MaxWall), true
	}
	return core.Result{}, false
}

// arity is SPEC §2's table of ops.
var arity = map[string]int{core.OpRead: 1, core.OpWrite: 2, core.OpFetch: 2, core.OpTool: 2}

// dispatch is step 3: the refusal of an op that is not one of the four,
// well formed, or core.Invalid for one that is.
func dispatch(op core.Op) core.Kind {
	n, known := arity[op.Kind]
	switch {
	case !known:
		return core.UnknownOp
	case len(op.Args) != n:
		return core.MalformedOp
	}
	for _, a := range op.Args {
		if strings.IndexByte(a, 0) >= 0 || !utf8.ValidString(a) {
			return core.MalformedOp
		}
	}
	return core.Invalid
}

func (s *sandbox) read(p string) core.Result {
	r, refused := s.resolve(p, s.readRoots, core.FSReadDenied)
	if refused != core.Invalid {
		return core.Result{Kind: refused}
	}
	data, ok := s.world.Read(r)
	return s.output(data, ok)
}

func (s *sandbox) write(p, data string) core.Result {
	r, refused := s.resolve(p, s.writeRoots, core.FSWriteDenied)
	if refused != core.Invalid {
		return core.Result{Kind: refused}
	}
	s.world.Write(r, data)
	return core.Result{Kind: core.OK}
}

// resolve checks p against roots, resolves it through the world's links
// and checks where it leads: the path to act on, or the refusal.
func (s *sandbox) resolve(p string, roots []string, denied core.Kind) (string, core.Kind) {
	switch {
	case s.traversal(p):
		return "", core.PathTraversal
	case !s.under(p, roots):
		return "", denied
	}
	r, ok := s.world.Realpath(p)
	switch {
	case !ok: // links that loop
		return "", core.NotFound
	case s.recheck && !s.under(r, roots):
		return "", denied
	}
	return r, core.Invalid
}

func (s *sandbox) fetch(host, p string) core.Result {
	if !s.granted(host, s.hosts) {
		return core.Result{Kind: core.EgressDenied}
	}
	a := s.world.Resolve(host)
	if s.internal(a) {
		return core.Result{Kind: core.EgressInternal}
	}
	if !s.resolveOnce {
		a = s.world.Resolve(host)
	}
	body, ok := s.world.Fetch(host, a, p)
	return s.output(body, ok)
}

func (s *sandbox) call(name, input string) core.Result {
	if !s.granted(name, s.tools) {
		return core.Result{Kind: core.ToolDenied}
	}
	out, ok := s.world.Call(name, input)
	return s.output(out, ok)
}

// output is step 5: the bytes an effect produced, charged, or a halt
// that hands none of them out.
func (s *sandbox) output(data string, ok bool) core.Result {
	if !ok {
		return core.Result{Kind: core.NotFound}
	}
	n := int64(len(data))
	if !s.fits(s.used.Output, n, s.budgets.MaxOutputBytes) {
		return s.halt(core.MaxOutputBytes)
	}
	s.used.Output += n
	return core.Result{Kind: core.OK, Data: data}
}

func (s *sandbox) halt(k core.Kind) core.Result {
	if s.latch {
		s.halted = k
	}
	return core.Result{Kind: k, Hard: true}
}

// elapsed is tick − t0 without wrapping: a difference past 2^63−1 is
// clamped and over, past every budget (SPEC §7); one below −2^63 (a clock
// run backwards) is clamped and charges nothing a budget refuses.
func elapsed(t0, tick int64) (wall int64, over bool) {
	if tick >= t0 {
		d := uint64(tick) - uint64(t0)
		if d > math.MaxInt64 {
			return math.MaxInt64, true
		}
		return int64(d), false
	}
	d := uint64(t0) - uint64(tick)
	if d >= 1<<63 {
		return math.MinInt64, false
	}
	return -int64(d), false
}

// exactly reports whether name is one of names, byte for byte (SPEC §2):
// API.example.org and "api.example.org." are other hosts.
func exactly(name string, names []string) bool { return slices.Contains(names, name) }

// hasDotDot reports a ".." segment between '/' or '\' (SPEC §4).
func hasDotDot(p string) bool {
	return slices.Contains(strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }), "..")
}

// underRoot reports whether Clean(p) is a root or lies below one, at a
// '/' boundary: root /work holds /work/x, not /workshop (SPEC §4).
func underRoot(p string, roots []string) bool {
	c := path.Clean(p)
	for _, root := range roots {
		r := path.Clean(root)
		if c == r || strings.HasPrefix(c, strings.TrimRight(r, "/")+"/") {
			return true
		}
	}
	return false
}

// internalAddr is SPEC §6's "internal": the NAT64 local-use prefix and
// Teredo whatever they carry; else the IPv4 address an IPv4-mapped,
// IPv4-compatible, NAT64 or 6to4 address embeds, judged as itself, or the
// address itself.
func internalAddr(a netip.Addr) bool {
	a = a.WithZone("")
	if inAny(a, alwaysInternal) {
		return true
	}
	a = embeddedIPv4(a)
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsMulticast() {
		return true
	}
	return inAny(a, alsoInternal)
}

// embeddedIPv4 is the IPv4 address a carries in one of SPEC §6's embedding
// forms, or a itself.
func embeddedIPv4(a netip.Addr) netip.Addr {
	b := a.As16()
	switch {
	case a.Is4In6():
		return a.Unmap()
	case compatible.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:]))
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:]))
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6]))
	}
	return a
}

func inAny(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

var (
	compatible = netip.MustParsePrefix("::/96")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	// alwaysInternal are internal whatever they carry.
	alwaysInternal = []netip.Prefix{netip.MustParsePrefix("64:ff9b:1::/48"), netip.MustParsePrefix("2001::/32")}
	// alsoInternal are the IPv4 ranges netip has no method for.
	alsoInternal = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("192.0.0.0/24"),
		netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("240.0.0.0/4"),
	}
)
