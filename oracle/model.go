package oracle

import (
	"fmt"
	"math"
	"net/netip"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// model is the independent model of SPEC §5 behind verdict-matches-model.
// core.Reference is a pipeline of early returns; the model is a decision
// table: for each op kind, an ordered list of rules, each a predicate over
// the op and the model's own state with the verdict it gives, and an effect
// that runs when no rule refuses. (An fs effect still refuses a path whose
// links resolve it out of the roots, SPEC §5 step 4: the rules are lexical,
// resolution is the world's.) The effects act on the model's own world
// (modelWorld: files, routes, DNS cycling, tools, tick clock), built from
// the same WorldSpec, so its predictions depend neither on what the sandbox
// under test did to the real world nor on how core reads the SPEC. It
// shares with core only the test for a ".." segment (spec.HasTraversal,
// SPEC §4), the reading of an IPv4 literal as inet_aton reads it
// (spec.ParseInetAton) and the table of internal addresses
// (spec.IsInternal, SPEC §6); allow-lists, well-formedness, budgets, link
// resolution, routing, DNS and the clock are its own.
type model struct {
	fsRead, fsWrite []string // roots, cleaned
	hosts, tools    []string
	budgets         core.Budgets

	world *modelWorld
	t0    int64
	ops   int64 // usage after the latest op (SPEC §5): ops charged,
	wall  int64 // the elapsed ticks of the latest clock read,
	out   int64 // and bytes returned
	// wallUnpinned is set once a clock read gave a wall int64 cannot hold.
	wallUnpinned bool
	halt         core.Kind
	// fetchAddr is the address the latest net_fetch past its rules
	// resolved its host to, for the words of a finding.
	fetchAddr netip.Addr
	// wrote is the path the latest op wrote, its links followed, or ""
	// when it wrote nothing: where its bytes are looked for.
	wrote string
}

// rule refuses an op with kind when refuses holds. why explains the
// verdict in a finding; it is called only when a finding needs it.
type rule struct {
	kind    core.Kind
	refuses func(m *model, args []string) bool
	why     func(m *model, args []string) string
}

// opRow is one op kind's row of the table.
type opRow struct {
	kind   string
	arity  int
	rules  []rule
	effect func(m *model, args []string) (core.Kind, string)
}

var table = [...]opRow{
	{
		kind: core.OpRead, arity: 1,
		rules: []rule{
			{core.PathTraversal, func(m *model, a []string) bool { return spec.HasTraversal(a[0]) }, traversalWhy},
			{core.FSReadDenied, func(m *model, a []string) bool { return !within(path.Clean(a[0]), m.fsRead) }, rootsWhy("fs_read", func(m *model) []string { return m.fsRead })},
		},
		effect: func(m *model, a []string) (core.Kind, string) {
			r, k := m.resolved(a[0], m.fsRead, core.FSReadDenied)
			if k != core.OK {
				return k, ""
			}
			d, ok := m.world.read(r)
			return found(ok), d
		},
	},
	{
		kind: core.OpWrite, arity: 2,
		rules: []rule{
			{core.PathTraversal, func(m *model, a []string) bool { return spec.HasTraversal(a[0]) }, traversalWhy},
			{core.FSWriteDenied, func(m *model, a []string) bool { return !within(path.Clean(a[0]), m.fsWrite) }, rootsWhy("fs_write", func(m *model) []string { return m.fsWrite })},
		},
		effect: func(m *model, a []string) (core.Kind, string) {
			r, k := m.resolved(a[0], m.fsWrite, core.FSWriteDenied)
			if k == core.OK {
				m.world.write(r, a[1])
				m.wrote = r
			}
			return k, ""
		},
	},
	{
		kind: core.OpFetch, arity: 2,
		rules: []rule{
			{core.EgressDenied, func(m *model, a []string) bool { return !slices.Contains(m.hosts, a[0]) }, func(m *model, a []string) string {
				return fmt.Sprintf("%s is not a granted host %s", quote(a[0]), quoteList(m.hosts))
			}},
		},
		effect: func(m *model, a []string) (core.Kind, string) {
			m.fetchAddr = m.world.resolve(a[0])
			if spec.IsInternal(m.fetchAddr) {
				return core.EgressInternal, ""
			}
			body, ok := m.world.fetch(a[0], a[1])
			return found(ok), body
		},
	},
	{
		kind: core.OpTool, arity: 2,
		rules: []rule{
			{core.ToolDenied, func(m *model, a []string) bool { return !slices.Contains(m.tools, a[0]) }, func(m *model, a []string) string {
				return fmt.Sprintf("%s is not a granted tool %s", quote(a[0]), quoteList(m.tools))
			}},
		},
		effect: func(m *model, a []string) (core.Kind, string) {
			out, ok := m.world.call(a[0], a[1])
			return found(ok), out
		},
	},
}

func traversalWhy(m *model, a []string) string { return quote(a[0]) + " has a .. segment" }

func rootsWhy(what string, roots func(*model) []string) func(*model, []string) string {
	return func(m *model, a []string) string {
		c := path.Clean(a[0])
		why := fmt.Sprintf("%s is under no %s root %s", quote(c), what, quoteList(roots(m)))
		// A sandbox that judges where an op lands (a mount namespace, a
		// check of the resolved path) allows such an op: say where.
		if r, ok := m.world.realpath(c); ok && r != c && within(r, roots(m)) {
			why += fmt.Sprintf(" (the world's links lead it to %s, under one: a sandbox that judges where an op lands allows it, SPEC §5 judges the path asked; an MCP server's profile says it with \"lands\")", quote(r))
		}
		return why
	}
}

// resolved is the second half of an fs op's checks, run once its rules
// have let the path through: the path resolved through the model's world
// (SPEC §13) and judged by the same roots. It returns the path the effect
// acts on and OK, or the kind that refuses the op: not_found for links
// that loop, denied for a path that resolves outside the roots.
func (m *model) resolved(p string, roots []string, denied core.Kind) (string, core.Kind) {
	c := path.Clean(p)
	if !m.world.hasLinks() {
		return c, core.OK // clean already, and nothing to follow
	}
	r, ok := m.world.realpath(c)
	switch {
	case !ok:
		return "", core.NotFound
	case r != c && !within(r, roots): // c itself passed the rules
		return "", denied
	}
	return r, core.OK
}

// lands is where a write of p reaches in the model's world: Clean(p), its
// links followed (SPEC §1, §13), or "" through links that loop.
func (m *model) lands(p string) string {
	c := path.Clean(p)
	if !m.world.hasLinks() {
		return c
	}
	r, ok := m.world.realpath(c)
	if !ok {
		return ""
	}
	return r
}

func found(ok bool) core.Kind {
	if ok {
		return core.OK
	}
	return core.NotFound
}

// newModel is the model of a run under the grant gs describes (already
// validated) over w. gs's lists are read, not copied, so they must not
// change while the model is in use.
func newModel(gs core.GrantSpec, w *modelWorld) *model {
	m := &model{
		fsRead:  cleanAll(gs.FSRead),
		fsWrite: cleanAll(gs.FSWrite),
		hosts:   gs.NetHosts,
		tools:   gs.Tools,
		budgets: gs.Budgets,
		world:   w,
	}
	m.t0, _ = w.clock.now() // the first tick is the clock's start: never past
	return m
}

// cleanAll returns the Clean of every root.
func cleanAll(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = path.Clean(r)
	}
	return out
}

// verdictReason says why the model gave its verdict: a rule to ask, or a
// fixed reason. It is two words, so predict builds no string on the hot
// path; explain writes the words only when a finding needs them.
type verdictReason struct {
	rule *rule
	code reasonCode
}

type reasonCode uint8

const (
	becauseLatched reasonCode = iota
	becauseOps
	becauseWall
	becauseWallUnheld
	becauseUnknown
	becauseMalformed
	becauseInternal
	becauseResolvedOutside
	becauseNothingThere
	becauseOutput
	becauseAllowed
)

var reasonText = [...]string{
	becauseLatched:         "the sandbox halted earlier and the halt is latched",
	becauseOps:             "this op is past max_ops",
	becauseWall:            "the wall since the sandbox was built (t0) has passed max_wall",
	becauseWallUnheld:      "the clock is past what int64 holds (a tick past 2^63−1, or a wall past either end), which passes every max_wall",
	becauseUnknown:         "the kind is none of fs_read, fs_write, net_fetch, tool",
	becauseMalformed:       "the arguments are not the kind's count of NUL-free UTF-8 strings",
	becauseInternal:        "the granted host resolves to an internal address",
	becauseResolvedOutside: "the path passes the allow-list, but the world's links resolve it to a path under none of the roots",
	becauseNothingThere:    "the op is permitted but the world has nothing there (or the path's links loop)",
	becauseOutput:          "the bytes would take the output past max_output_bytes",
	becauseAllowed:         "every check passes",
}

func (m *model) explain(r verdictReason, op core.Op) string {
	switch {
	case r.rule != nil:
		return r.rule.why(m, op.Args)
	case op.Kind == core.OpFetch && r.code == becauseInternal:
		return m.addressWhy(op.Args[0])
	case op.Kind == core.OpFetch && slices.Contains(afterResolve, r.code):
		return reasonText[r.code] + m.redirectWhy(op.Args) + "; " + m.addressWhy(op.Args[0])
	}
	return reasonText[r.code]
}

// afterResolve are the reasons a net_fetch gets once its host resolved
// to an address that is not internal.
var afterResolve = []reasonCode{becauseNothingThere, becauseOutput, becauseAllowed}

// documentation holds the ranges set aside for documentation (RFC 5737,
// RFC 3849): public by SPEC §6, where the world's names resolve, but
// refused by a guard that refuses every special-purpose range of IANA's.
var documentation = []netip.Prefix{
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32"),
}

// redirectWhy says of a fetch the world answers with a redirect that the
// model's answer is the redirect itself, or "": a sandbox whose client
// follows it, and refuses or fails where it leads, answers otherwise, and
// its verdict is about the Location, not the host asked.
func (m *model) redirectWhy(args []string) string {
	loc, ok := m.world.base.redirect(args[0], args[1])
	if !ok {
		return ""
	}
	return fmt.Sprintf("; the world answers it with a redirect to %s, which SPEC §5 returns as it is, one request a fetch: a sandbox that follows it answers for where it leads", quote(loc))
}

// addressWhy says where the latest fetch's host resolved, in the model:
// a sandbox whose verdict on a fetch differs often judged another address.
func (m *model) addressWhy(host string) string {
	a := m.fetchAddr
	if spec.IsInternal(a) {
		return fmt.Sprintf("the granted host %s resolves to %s, an internal address (%s)", quote(host), a, internalRange(a))
	}
	why := fmt.Sprintf("%s resolves to %s, not internal by SPEC §6", quote(host), a)
	if slices.ContainsFunc(documentation, func(p netip.Prefix) bool { return p.Contains(spec.Unmap(a)) }) {
		why += " (a documentation address: a guard that refuses every special-purpose range, as IANA lists them, is stricter than SPEC §6 here)"
	}
	h := spec.NormalizeHost(host)
	if _, literal := spec.ParseInetAton(h); literal && !isDottedQuad(h) {
		why += " (an IPv4 spelling only inet_aton reads: a resolver that does not read it asks DNS for it as a name, and the namespace's DNS, as a real one, answers nothing; such a sandbox is stricter than SPEC §6 here)"
	}
	if form := spec.EmbeddingForm(a); form != "" {
		why += fmt.Sprintf(" (the %s form of %s, a public address: a guard that refuses every %s address is stricter than SPEC §6 here)", form, spec.Unmap(a), form)
	}
	return why
}

// isDottedQuad reports whether h is an IPv4 address in the form every
// resolver reads as it is.
func isDottedQuad(h string) bool {
	a, err := netip.ParseAddr(h)
	return err == nil && a.Is4()
}

// predict returns the result SPEC §5 gives for op and why, advancing the
// model's state as a correct sandbox would.
func (m *model) predict(op core.Op) (core.Result, verdictReason) {
	if m.halt != core.Invalid {
		return core.Result{Kind: m.halt, Hard: true}, verdictReason{code: becauseLatched}
	}
	m.wrote = ""
	m.ops++
	if m.ops > m.budgets.MaxOps {
		return m.halted(core.MaxOps), verdictReason{code: becauseOps}
	}
	now, pastTop := m.world.clock.now()
	elapsed, past := wallSince(m.t0, now)
	// A wall that int64 cannot hold (a tick past 2^63−1, a difference past
	// either end) is past every budget, or before every start; SPEC §5
	// pins no number for it, so usage's wall is not compared from then on.
	m.wall, m.wallUnpinned = elapsed, m.wallUnpinned || pastTop || past || elapsed == math.MinInt64
	if pastTop || past {
		return m.halted(core.MaxWall), verdictReason{code: becauseWallUnheld}
	}
	if elapsed > m.budgets.MaxWall {
		return m.halted(core.MaxWall), verdictReason{code: becauseWall}
	}
	row := lookup(op.Kind)
	if row == nil {
		return core.Result{Kind: core.UnknownOp}, verdictReason{code: becauseUnknown}
	}
	if len(op.Args) != row.arity || anyBad(op.Args) {
		return core.Result{Kind: core.MalformedOp}, verdictReason{code: becauseMalformed}
	}
	for i := range row.rules {
		if r := &row.rules[i]; r.refuses(m, op.Args) {
			return core.Result{Kind: r.kind}, verdictReason{rule: r}
		}
	}
	kind, data := row.effect(m, op.Args)
	switch {
	case kind == core.EgressInternal:
		return core.Result{Kind: kind}, verdictReason{code: becauseInternal}
	case kind == core.FSReadDenied || kind == core.FSWriteDenied:
		return core.Result{Kind: kind}, verdictReason{code: becauseResolvedOutside}
	case kind != core.OK:
		return core.Result{Kind: kind}, verdictReason{code: becauseNothingThere}
	case m.out+int64(len(data)) > m.budgets.MaxOutputBytes:
		return m.halted(core.MaxOutputBytes), verdictReason{code: becauseOutput}
	}
	m.out += int64(len(data))
	return core.Result{Kind: core.OK, Data: data}, verdictReason{code: becauseAllowed}
}

// wallSince returns now - t0, and past=true when the true difference is
// beyond math.MaxInt64, which no budget can allow. A difference below
// math.MinInt64 (a clock run backwards) is clamped: it halts nothing.
func wallSince(t0, now int64) (elapsed int64, past bool) {
	d := now - t0
	switch {
	case now >= t0 && d < 0:
		return math.MaxInt64, true
	case now < t0 && d >= 0:
		return math.MinInt64, false
	}
	return d, false
}

// usage returns the counters a sandbox following SPEC §5 reports after
// the ops predicted so far: every op past the halt gate, the wall of the
// latest clock read, the bytes of the ok results.
func (m *model) usage() core.Usage { return core.Usage{Ops: m.ops, Wall: m.wall, Output: m.out} }

// usageMatches compares u with usage(), leaving out a wall SPEC §5 does
// not pin.
func (m *model) usageMatches(u core.Usage) bool {
	if m.wallUnpinned {
		u.Wall = m.wall
	}
	return u == m.usage()
}

func (m *model) halted(k core.Kind) core.Result {
	m.halt = k
	return core.Result{Kind: k, Hard: true}
}

func anyBad(args []string) bool {
	for _, a := range args {
		if badArg(a) {
			return true
		}
	}
	return false
}

func lookup(kind string) *opRow {
	for i := range table {
		if table[i].kind == kind {
			return &table[i]
		}
	}
	return nil
}

// badArg reports an argument that is not well formed (SPEC §2): one with
// a NUL byte, or not valid UTF-8.
func badArg(a string) bool { return strings.IndexByte(a, 0) >= 0 || !utf8.ValidString(a) }

// within reports whether the clean path c is a clean root or lies below
// one: it extends the root by one separator unless the root is "/" itself.
func within(c string, roots []string) bool {
	for _, r := range roots {
		if c == r {
			return true
		}
		if strings.HasPrefix(c, r) && (r == "/" || c[len(r)] == '/') {
			return true
		}
	}
	return false
}
