// Package gosandbox is a small sandbox for an AI agent's tool calls, meant
// as a starting point to copy. It runs fs_read, fs_write, net_fetch and tool
// ops under an allow-list grant and three budgets, following SPEC §5 step by
// step, and makes every effect through the core.World it is given, so that
// sbxfuzz can judge it. It was written from the SPEC, not from the project's
// reference sandbox. One deliberate defect, off by default: see defect.go.
package gosandbox

import (
	"math"
	"net/netip"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// sandbox holds the grant it enforces, the world it acts through, and what
// it has charged. It is not safe for concurrent use: ops run one at a time.
type sandbox struct {
	grant core.Grant
	world core.World

	// The grant's lists and budgets, read once: a core.Grant never changes.
	readRoots, writeRoots []string
	hosts, tools          []string
	limits                core.Budgets

	t0     int64 // the clock when the sandbox was built; wall is measured from here
	used   core.Usage
	halted core.Kind // the hard kind that stopped us, or core.Invalid while running

	egress Egress // net_fetch's way out: the world's resolver and router, unless NewWithEgress says otherwise

	prefixDefect bool // GOSANDBOX_DEFECT=prefix: see defect.go
}

// Egress is the way out of net_fetch, called for a host the grant lists
// (the grant is checked first): the body fetched for host and path, or
// the refusal — core.EgressInternal when host leads to an internal
// address, core.NotFound when nothing answers — with core.OK for a body.
// room is what the output budget has left: a body longer than room is
// refused by the sandbox whatever its length, so reading room+1 bytes of
// it is enough.
type Egress func(host, path string, room int64) (body string, kind core.Kind)

// New builds a sandbox over w that enforces g. It reads the clock once, for
// t0, and GOSANDBOX_DEFECT once. It never fails; the error is there for
// sandboxes that check more at construction.
func New(g core.Grant, w core.World) (core.Sandbox, error) { return NewWithEgress(g, w, nil), nil }

// NewWithEgress is New with net_fetch going out through egress (a real
// HTTP client, say); nil is New's: the world's resolver and router,
// resolving once and refusing an internal address.
func NewWithEgress(g core.Grant, w core.World, egress Egress) core.Sandbox {
	t0, _ := w.Now() // the first tick is the clock's start: it always fits
	s := &sandbox{
		grant:        g,
		world:        w,
		readRoots:    cleanAll(g.FSRead()),
		writeRoots:   cleanAll(g.FSWrite()),
		hosts:        g.NetHosts(),
		tools:        g.Tools(),
		limits:       g.Budgets(),
		t0:           t0,
		egress:       egress,
		prefixDefect: os.Getenv(defectEnv) == defectPrefix,
	}
	if s.egress == nil {
		s.egress = s.worldEgress
	}
	return s
}

// Usage returns what has been charged so far.
func (s *sandbox) Usage() core.Usage { return s.used }

// Grant returns the grant as given: core.Grant's accessors hand out copies,
// so a caller cannot widen our authority through it.
func (s *sandbox) Grant() core.GrantView { return s.grant }

// Run executes one op, in SPEC §5's order. Each step returns as soon as it
// decides, so a refused op never reaches the world.
func (s *sandbox) Run(op core.Op) core.Result {
	// 1. A halted sandbox stays halted, and does nothing at all: no charge,
	// no clock read, no world call.
	if s.halted != core.Invalid {
		return core.Result{Kind: s.halted, Hard: true}
	}
	// 2. Charge before looking at the op, so that denied probes burn budget
	// too. The clock is read only after the op budget passed.
	s.used.Ops++
	if s.used.Ops > s.limits.MaxOps {
		return s.halt(core.MaxOps)
	}
	// A tick that would pass 2^63−1 comes back with fits=false: it is past
	// every budget (SPEC §7).
	now, fits := s.world.Now()
	var overflow bool
	s.used.Wall, overflow = wallSince(s.t0, now)
	if !fits || overflow || s.used.Wall > s.limits.MaxWall {
		return s.halt(core.MaxWall)
	}
	// 3. Dispatch: the kind must be one of the four, with the right number
	// of well-formed arguments.
	want, known := arity[op.Kind]
	if !known {
		return deny(core.UnknownOp)
	}
	if len(op.Args) != want || slices.ContainsFunc(op.Args, badArg) {
		return deny(core.MalformedOp)
	}
	// 4. Check, then effect.
	switch op.Kind {
	case core.OpRead:
		return s.read(op.Args[0])
	case core.OpWrite:
		return s.write(op.Args[0], op.Args[1])
	case core.OpFetch:
		return s.fetch(op.Args[0], op.Args[1])
	default: // core.OpTool: arity knows no other kind
		return s.tool(op.Args[0], op.Args[1])
	}
}

func (s *sandbox) read(p string) core.Result {
	if hasDotDot(p) {
		return deny(core.PathTraversal)
	}
	if !s.allowed(p, s.readRoots) {
		return deny(core.FSReadDenied)
	}
	// Resolve p through the world's links (SPEC §13) only now that it
	// passed the lexical check, and check where it really leads against the
	// same roots: a link inside a root may point anywhere.
	r, ok := s.world.Realpath(p)
	if !ok {
		return core.Result{Kind: core.NotFound} // a link loop
	}
	if !s.allowed(r, s.readRoots) {
		return deny(core.FSReadDenied)
	}
	data, ok := s.world.Read(r)
	return s.produced(data, ok)
}

func (s *sandbox) write(p, data string) core.Result {
	if hasDotDot(p) {
		return deny(core.PathTraversal)
	}
	if !s.allowed(p, s.writeRoots) {
		return deny(core.FSWriteDenied)
	}
	r, ok := s.world.Realpath(p) // as for a read: resolve after the lexical check, then check again
	if !ok {
		return core.Result{Kind: core.NotFound}
	}
	if !s.allowed(r, s.writeRoots) {
		return deny(core.FSWriteDenied)
	}
	s.world.Write(r, data)
	return core.Result{Kind: core.OK} // a write produces no data, so charges no output
}

func (s *sandbox) fetch(host, p string) core.Result {
	// Byte-for-byte: "API.internal" or "api.internal." is another host,
	// however the resolver would treat it.
	if !slices.Contains(s.hosts, host) {
		return deny(core.EgressDenied)
	}
	body, kind := s.egress(host, p, s.limits.MaxOutputBytes-s.used.Output)
	if kind != core.OK {
		return deny(kind)
	}
	return s.produced(body, true)
}

// worldEgress is the Egress of New: through the world's resolver and router.
func (s *sandbox) worldEgress(host, p string, _ int64) (string, core.Kind) {
	// Resolve exactly once and connect to that very address. Resolving
	// again to connect is the DNS-rebinding hole: the second answer may be
	// internal even when the first was not.
	addr := s.world.Resolve(host)
	if IsInternal(addr) {
		return "", core.EgressInternal
	}
	body, ok := s.world.Fetch(host, addr, p)
	if !ok {
		return "", core.NotFound
	}
	return body, core.OK
}

func (s *sandbox) tool(name, input string) core.Result {
	if !slices.Contains(s.tools, name) {
		return deny(core.ToolDenied)
	}
	out, ok := s.world.Call(name, input)
	return s.produced(out, ok)
}

// produced is step 5: it charges the bytes an effect produced, and halts
// instead of handing them out when they would pass the output budget.
func (s *sandbox) produced(data string, ok bool) core.Result {
	if !ok {
		return deny(core.NotFound)
	}
	// Compare as remaining room, not as used+n, so a huge n cannot overflow.
	if int64(len(data)) > s.limits.MaxOutputBytes-s.used.Output {
		return s.halt(core.MaxOutputBytes) // and no data: the bytes stay here
	}
	s.used.Output += int64(len(data))
	return core.Result{Kind: core.OK, Data: data}
}

// halt latches a hard kind: this op and every later one return it.
func (s *sandbox) halt(k core.Kind) core.Result {
	s.halted = k
	return core.Result{Kind: k, Hard: true}
}

// deny refuses one op; the sandbox goes on.
func deny(k core.Kind) core.Result { return core.Result{Kind: k} }

// wallSince is now - t0. A difference too large for an int64 must not wrap
// round to look small: it is clamped, and overflow reports that it is past
// every budget (SPEC §7). A clock run backwards is clamped the other way and
// halts nothing.
func wallSince(t0, now int64) (wall int64, overflow bool) {
	d := now - t0
	switch {
	case now >= t0 && d < 0:
		return math.MaxInt64, true
	case now < t0 && d >= 0:
		return math.MinInt64, false
	}
	return d, false
}

// badArg is a NUL byte or invalid UTF-8: arguments like these mean
// different things to different layers (C strings stop at NUL), so they
// are refused before anything looks at them.
func badArg(a string) bool { return strings.IndexByte(a, 0) >= 0 || !utf8.ValidString(a) }

// hasDotDot reports a ".." segment, splitting on '\' as well as '/': a
// path that will reach a Windows-minded tool may use either. "..hidden" is a
// name, not a traversal.
func hasDotDot(p string) bool {
	return slices.Contains(strings.Split(strings.ReplaceAll(p, `\`, "/"), "/"), "..")
}

// allowed reports whether Clean(p) is one of roots (already clean) or
// inside one. The separator matters: root "/work" must not let "/workshop"
// through, so p is inside only when it starts with the root plus "/".
func (s *sandbox) allowed(p string, roots []string) bool {
	clean := path.Clean(p)
	for _, r := range roots {
		if s.prefixDefect && prefixSibling(clean, r) { // DELIBERATE DEFECT: see defect.go
			return true
		}
		if clean == r || strings.HasPrefix(clean, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

// cleanAll returns the roots as path.Clean writes them: "/work/" is "/work".
func cleanAll(roots []string) []string {
	for i, r := range roots {
		roots[i] = path.Clean(r)
	}
	return roots
}

// arity is the number of arguments each op kind takes (SPEC §2); a kind
// it does not list is unknown.
var arity = map[string]int{core.OpRead: 1, core.OpWrite: 2, core.OpFetch: 2, core.OpTool: 2}

// alsoInternal are the internal ranges of SPEC §6 that netip has no
// method for: "this network", carrier-grade NAT, IETF protocol
// assignments, benchmarking, and reserved (with broadcast).
var alsoInternal = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// The IPv6 prefixes of SPEC §6: four that embed an IPv4 address, where a
// fetch to them really goes, and two internal whatever they carry.
var (
	compatible     = netip.MustParsePrefix("::/96") // ::a.b.c.d
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16") // the IPv4 address in bits 16-47
	alwaysInternal = []netip.Prefix{netip.MustParsePrefix("64:ff9b:1::/48"), netip.MustParsePrefix("2001::/32")}
)

// IsInternal reports whether a fetch to a would stay inside the
// infrastructure. An IPv4 address spelled as IPv6 (IPv4-mapped,
// IPv4-compatible, NAT64 or 6to4) is judged as the IPv4 address it
// reaches; the NAT64 local-use prefix and Teredo are internal whatever
// they carry; an address nobody resolved (the zero Addr) is internal too.
func IsInternal(a netip.Addr) bool {
	a = a.WithZone("")
	if slices.ContainsFunc(alwaysInternal, func(r netip.Prefix) bool { return r.Contains(a) }) {
		return true
	}
	b := a.As16()
	switch {
	case a.Is4In6():
		a = a.Unmap()
	case compatible.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback(), nat64.Contains(a):
		a = netip.AddrFrom4([4]byte(b[12:]))
	case sixToFour.Contains(a):
		a = netip.AddrFrom4([4]byte(b[2:6]))
	}
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() ||
		a.IsLinkLocalUnicast() || a.IsMulticast() {
		return true
	}
	return slices.ContainsFunc(alsoInternal, func(r netip.Prefix) bool { return r.Contains(a) })
}
