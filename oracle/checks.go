package oracle

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// The per-step checks. Each counts itself as checked only where it applies
// (no-effect-on-denial only after a denial, say), so coverage tables show
// which attack classes really exercised it; each builds its explanation only
// when it fails.

// isDenial reports whether k refuses an op before any world call:
// path_traversal, the *_denied kinds, unknown_op, malformed_op, max_ops and
// max_wall. These are the kinds after which the world must be untouched
// (SPEC §8, no-effect-on-denial). egress_internal, not_found and
// max_output_bytes are not: each follows a permitted world call (a resolve,
// a lookup, the effect whose bytes were refused).
func isDenial(k core.Kind) bool {
	switch k {
	case core.PathTraversal, core.FSReadDenied, core.FSWriteDenied, core.EgressDenied,
		core.ToolDenied, core.UnknownOp, core.MalformedOp, core.MaxOps, core.MaxWall:
		return true
	}
	return false
}

func (r *watchedRun) checkNoEffect(s *stepObs, want core.Result) {
	k := s.res.Kind
	switch {
	case isDenial(k):
		r.cov.Classes[s.class].Checked[NoEffectOnDenial]++
		if (len(s.entries) > 0 && !r.resolvedDenial(s)) || s.fpAfter != s.fpBefore {
			allows := ""
			if want.Kind == core.OK {
				// A tool that makes a file's directories and then fails
				// to write it: its failure is a refusal all the same.
				allows = " where the model allows the op"
			}
			r.violate(NoEffectOnDenial, s.class, fmt.Sprintf("%s was refused with %s%s, but the world changed: %s",
				formatOp(*s.op), k, allows, describeEffects(s)))
		}
	case k == core.MaxOutputBytes:
		r.cov.Classes[s.class].Checked[NoEffectOnDenial]++
		if s.res.Data != "" {
			r.violate(NoEffectOnDenial, s.class, fmt.Sprintf("%s halted with max_output_bytes but still returned %d bytes",
				formatOp(*s.op), len(s.res.Data)))
		} else if bad := outsidePermittedEffect(*s.op, s.entries); bad >= 0 || s.fpAfter != s.fpBefore {
			what := describeEffects(s)
			if bad >= 0 {
				what = fmt.Sprintf("the journal gained %d entries, entry %d %q outside that effect", len(s.entries), bad+1, entryText(s.entries[bad]))
			}
			r.violate(NoEffectOnDenial, s.class, fmt.Sprintf("%s halted with max_output_bytes, which permits only the effect that produced the bytes, but the world changed: %s",
				formatOp(*s.op), what))
		}
	}
}

// resolvedDenial reports whether s is a denial on the resolved path (SPEC
// §5 step 4, §8): an fs_read refused fs_read_denied, or an fs_write refused
// fs_write_denied, whose path passed the lexical checks, and whose only
// journal entry is the realpath of that very path. That entry is the one a
// denial may keep. Whether the path it answered really lies outside the
// roots is verdict-matches-model's business, not this check's.
func (r *watchedRun) resolvedDenial(s *stepObs) bool {
	if len(s.entries) != 1 || len(s.op.Args) == 0 {
		return false
	}
	e, p := s.entries[0], s.op.Args[0]
	if e.Call != refworld.CallRealpath || spec.Canonical(e.Name) != spec.Canonical(p) { // resolving Clean(p) is resolving p
		return false
	}
	switch {
	case s.op.Kind == core.OpRead && s.res.Kind == core.FSReadDenied:
		return r.grant.MayRead(p)
	case s.op.Kind == core.OpWrite && s.res.Kind == core.FSWriteDenied:
		return r.grant.MayWrite(p)
	}
	return false
}

// outsidePermittedEffect returns the index of the first entry that is not
// part of the effect op may have, in order, or -1 when all are: for
// fs_read, the realpaths of its path, then the read of the path that
// answered (outsideRead); for tool, call n in; for net_fetch, resolves and fetches,
// as many as an allowed fetch may make: a client may ask twice for one
// answer (robots.txt then the page, HEAD then GET), follow a redirect, or
// ask a host of its own (a relay), and confinement and no-internal-egress
// judge where they went.
func outsidePermittedEffect(op core.Op, entries []refworld.Entry) int {
	if len(op.Args) == 0 { // a malformed op may have no effect at all
		if len(entries) > 0 {
			return 0
		}
		return -1
	}
	if op.Kind == core.OpFetch {
		return slices.IndexFunc(entries, func(e refworld.Entry) bool {
			return e.Call != refworld.CallResolve && e.Call != refworld.CallFetch
		})
	}
	if op.Kind == core.OpRead {
		return outsideRead(op.Args[0], entries)
	}
	n := 0 // the entries of the permitted effect: the call of a tool op
	if op.Kind == core.OpTool && len(entries) > 0 && entries[0].Call == refworld.CallTool && entries[0].Name == op.Args[0] {
		n = 1
	}
	if len(entries) > n {
		return n
	}
	return -1
}

// outsideRead is outsidePermittedEffect for an fs_read of p: realpaths of
// p or of what they answered (a sandbox may resolve a path more than
// once: each is a lookup, which changes nothing), then at most one read,
// of the path the last of them answered. The realpath may be missing, the
// read then naming p: in a world without links the two reach the same
// file, so only a world with links could tell a sandbox that skips the
// step (SPEC §13).
func outsideRead(p string, entries []refworld.Entry) int {
	name, read := p, false
	for i, e := range entries {
		switch {
		case !read && e.Call == refworld.CallRealpath && (samePath(e, p) || samePath(e, name)):
			name = e.Arg
		case !read && e.Call == refworld.CallRead && e.Name == name:
			read = true
		default:
			return i
		}
	}
	return -1
}

// samePath reports whether e names name: byte for byte, or, for a
// realpath, as the same clean path (resolving Clean(p) is resolving p).
func samePath(e refworld.Entry, name string) bool {
	return e.Name == name || e.Call == refworld.CallRealpath && spec.Canonical(e.Name) == spec.Canonical(name)
}

func describeEffects(s *stepObs) string {
	if len(s.entries) == 0 {
		return "the VFS content changed without a journaled call"
	}
	out := fmt.Sprintf("the journal gained %d entries, first %q%s", len(s.entries), entryText(s.entries[0]), madeDir(&s.entries[0]))
	if s.fpAfter != s.fpBefore {
		out += ", and the VFS content changed"
	}
	return out
}

func (r *watchedRun) checkConfinement(s *stepObs) {
	r.cov.Classes[s.class].Checked[Confinement]++
	for i := range s.entries { // by pointer: an entry is eight words
		e := &s.entries[i]
		if i > 0 && sameJudgement(&s.entries[i-1], e, s.op.Kind) {
			continue // authorized already, by the same test of the same path
		}
		if why := r.unauthorized(e, s.op.Kind); why != "" {
			r.violate(Confinement, s.class, fmt.Sprintf("%s returned %s and the journal shows %s%s%s, but %s",
				formatOp(*s.op), describeResult(s.res), entryText(*e), madeDir(e), r.effectAfter(s, i), why))
			return
		}
	}
}

// trimmedPath says of a file op whose path begins or ends with white
// space that a sandbox that trims it acts on another path: a verdict
// that differs there is most often that, which a newcomer's profile did
// not say.
func trimmedPath(op core.Op) string {
	if (op.Kind != core.OpRead && op.Kind != core.OpWrite) || len(op.Args) == 0 || strings.TrimSpace(op.Args[0]) == op.Args[0] {
		return ""
	}
	return ` (the path begins or ends with white space: a sandbox that trims it acts on another path, as an MCP server whose profile says "trims" does)`
}

// madeDir says of a write of nothing to a path that ends in "/" that it
// is a directory made or changed (an entry of it removed, a link in it
// made or changed): a real sandbox's door journals each so.
func madeDir(e *refworld.Entry) string {
	if e.Call == refworld.CallWrite && e.Arg == "" && strings.HasSuffix(e.Name, "/") {
		return " (a directory made or changed)"
	}
	return ""
}

// effectAfter names, for a confinement violation at entry i that is a
// lookup (a resolve of a host the grant does not list, a realpath of a path
// outside the roots), the first later effect of the step that the grant
// does not authorize either: a connection made, a file read or written,
// which the words must not leave to the replay's journal.
func (r *watchedRun) effectAfter(s *stepObs, i int) string {
	if c := s.entries[i].Call; c != refworld.CallResolve && c != refworld.CallRealpath {
		return ""
	}
	for j := i + 1; j < len(s.entries); j++ {
		e := &s.entries[j]
		if (e.Call == refworld.CallFetch || e.Call == refworld.CallRead || e.Call == refworld.CallWrite) && r.unauthorized(e, s.op.Kind) != "" {
			return ", and then " + entryText(*e)
		}
	}
	return ""
}

// sameJudgement reports whether unauthorized judges b, made by an op of
// kind opKind, exactly as it judges a: a is a realpath that answered the
// very path it asked, and b the read (in an fs_read) or the write (in an
// fs_write) of that path, which is what a correct sandbox journals for a
// path already canonical and free of links. (A realpath that answered
// another path leaves the read or write of the path asked to be judged on
// its own: the links it goes through may lead out of the roots.)
func sameJudgement(a, b *refworld.Entry, opKind string) bool {
	return a.Call == refworld.CallRealpath && a.Name == b.Name && a.Arg == b.Name &&
		(b.Call == refworld.CallRead && opKind == core.OpRead || b.Call == refworld.CallWrite && opKind == core.OpWrite)
}

// unauthorized says why the grant does not allow e, made by an op of kind
// opKind, or "" when it does. A read or a write is judged on the path it
// names and the path it really reached: the world follows links whatever
// the sandbox asked (SPEC §13), so both the path named (SPEC §8) and the
// path it resolves to, by the model's reading of the links, must lie
// under the roots, without traversal. A realpath is judged on the path it was asked, by the roots of the
// op that asked: it is authorized exactly when the op's lexical checks
// passed.
func (r *watchedRun) unauthorized(e *refworld.Entry, opKind string) string {
	g := r.grant
	switch e.Call {
	case refworld.CallRead:
		return r.reached(e.Name, "fs_read", g.FSRead, g.MayRead)
	case refworld.CallWrite:
		return r.reached(e.Name, "fs_write", g.FSWrite, g.MayWrite)
	case refworld.CallRealpath:
		switch opKind {
		case core.OpRead:
			if !g.MayRead(e.Name) {
				return pathProblem(e.Name, "fs_read", g.FSRead()) + ": a path is resolved only after it passes the allow-list"
			}
		case core.OpWrite:
			if !g.MayWrite(e.Name) {
				return pathProblem(e.Name, "fs_write", g.FSWrite()) + ": a path is resolved only after it passes the allow-list"
			}
		default:
			return fmt.Sprintf("only fs_read and fs_write resolve paths, and the op is %s", quote(opKind))
		}
	case refworld.CallResolve, refworld.CallFetch:
		if !grantedOnTheWire(g, e.Name, r.model.world.hasDNSLine) && !(e.Call == refworld.CallResolve && namesGrantedHost(g, e.Name)) {
			return fmt.Sprintf("%s is not a granted host %s", quote(e.Name), quoteList(g.NetHosts()))
		}
	case refworld.CallTool:
		if !g.MayCall(e.Name) {
			return fmt.Sprintf("%s is not a granted tool %s", quote(e.Name), quoteList(g.Tools()))
		}
	default:
		return "the journal entry is of no known call"
	}
	return ""
}

// reached judges a read or a write of p by may, on the path it names and
// on the path it really reached, and says why it is not allowed, or ""
// when it is. Through links that loop a call reaches nothing, and only p
// itself is judged. roots lists the grant's roots, for the words.
func (r *watchedRun) reached(p, what string, roots func() []string, may func(string) bool) string {
	if !may(p) { // the path named must pass (SPEC §8), and the path reached too
		return pathProblem(p, what, roots())
	}
	if !r.model.world.hasLinks() {
		return ""
	}
	if real, ok := r.model.world.realpath(p); ok && !may(real) {
		return fmt.Sprintf("%s resolves through the world's links to %s, which is under no %s root %s",
			quote(p), quote(real), what, quoteList(roots()))
	}
	return ""
}

// grantedOnTheWire reports whether the grant lists host, a host the
// journal names: byte for byte, or, host being an IP literal, as a literal
// of the same address in any spelling (SPEC §14: a URL must write ::1 as
// "[::1]", and a client or a proxy may write the literal it was given as
// it likes, "0x7f.1" as "127.0.0.1": the connection is for the same
// host). A spelling with a dns line of its own (named) is a name, which
// may resolve anywhere: it is granted byte for byte only. An op is still
// judged on its host byte for byte, by the model.
func grantedOnTheWire(g core.Grant, host string, named func(string) bool) bool {
	if g.MayFetch(host) {
		return true
	}
	a, ok := spec.ParseIPLiteral(spec.NormalizeHost(host))
	if !ok || named(host) {
		return false
	}
	return slices.ContainsFunc(g.NetHosts(), func(h string) bool {
		b, ok := spec.ParseIPLiteral(spec.NormalizeHost(h))
		return ok && !named(h) && b.Unmap() == a.Unmap()
	})
}

// namesGrantedHost reports whether name is the name a granted host that
// carries a port is resolved by (names compared as SPEC §6 compares them:
// a DNS query is journaled as the resolver was asked): an HTTP client
// drops the port before it looks the name up, and that lookup is the
// granted host's (SPEC §6).
func namesGrantedHost(g core.Grant, name string) bool {
	return slices.ContainsFunc(g.NetHosts(), func(h string) bool {
		return spec.HostName(h) != h && spec.LookupKey(h) == spec.NormalizeHost(name)
	})
}

func pathProblem(p, what string, roots []string) string {
	if p == "/.." || strings.HasPrefix(p, "/../") {
		// A real sandbox's change above the tree it was given.
		return fmt.Sprintf("%s lies above the world's root, under no %s root %s", quote(p), what, quoteList(roots))
	}
	if spec.HasTraversal(p) {
		return fmt.Sprintf("%s has a .. segment", quote(p))
	}
	return fmt.Sprintf("%s is under no %s root %s", quote(spec.Canonical(p)), what, quoteList(roots))
}

func (r *watchedRun) checkEgress(s *stepObs) {
	if s.op.Kind == core.OpFetch {
		r.cov.Classes[s.class].Checked[NoInternalEgress]++
	}
	if why := egressProblem(s.entries, r.model.world.redirects); why != "" {
		r.violate(NoInternalEgress, s.class, formatOp(*s.op)+" "+why)
	}
}

// egressProblem says what the fetches among entries did that
// no-internal-egress forbids, starting with a verb ("fetched from …"), or
// "" when nothing: entries are one op's, or the sandbox's build's. Each
// fetch must use the address the last resolve of its host answered; a
// sandbox that asks twice for one answer (HEAD then GET, robots.txt then
// the page) uses the address it checked, but one that looks a host it
// fetches up again before fetching from the first answer, or more often
// than it fetches it, may have checked another answer than it used. A
// host looked up and never fetched (a redirect's Location, checked and
// refused) opens no such window, nor does a lookup of a host after its
// last fetch when the world answered that fetch with a redirect to the
// same host (redirects) and the lookup's answer was internal, so unused: a
// follower's lookup of the next hop, checked and refused (one that
// connects first and checks after looks the same only where its answer
// is internal and unused), and nor do lookups that all answered one
// address: whichever the sandbox checked is the one it used (a guard that
// checks every answer and pins the last looks its host up several
// times). Hosts are compared as SPEC §6 compares names: a DNS query and a
// request's Host spell a name as they like.
func egressProblem(entries []refworld.Entry, redirects func(host, path string) bool) string {
	type lookups struct {
		resolves, fetches int
		last              netip.Addr // the last answer
		resolved          bool       // some resolve answered
		unused            bool       // no fetch has used the last answer yet
		again             bool       // looked up again before a fetch used its answer
		varied            bool       // some resolve answered another address than one before
		redirected        bool       // the world answered the last fetch with a redirect on the same host
		atFetch           struct {   // resolves, again and varied as the last fetch left them
			resolves      int
			again, varied bool
		}
	}
	hosts := map[string]*lookups{}
	var order []string // the hosts in the order the entries name them: the report names the first
	of := func(name string) *lookups {
		h := spec.LookupKey(name) // a client looks a host up without its port
		l, ok := hosts[h]
		if !ok {
			l = new(lookups)
			hosts[h] = l
			order = append(order, h)
		}
		return l
	}
	for i := range entries {
		e := &entries[i]
		switch e.Call {
		case refworld.CallResolve:
			l := of(e.Name)
			l.resolves++
			l.again = l.again || l.unused
			l.varied = l.varied || l.resolved && l.last.Unmap() != e.Addr.Unmap()
			l.last, l.resolved, l.unused = e.Addr, true, true
		case refworld.CallFetch:
			l := of(e.Name)
			l.fetches++
			l.unused = false
			l.redirected = redirects(e.Name, e.Arg)
			l.atFetch.resolves, l.atFetch.again, l.atFetch.varied = l.resolves, l.again, l.varied
			switch {
			case spec.IsInternal(e.Addr):
				return fmt.Sprintf("fetched from %s, an internal address (%s)", e.Addr, internalRange(e.Addr))
			case !l.resolved:
				return fmt.Sprintf("fetched from %s without resolving %s before, in the same op", e.Addr, quote(e.Name))
			case l.last.Unmap() != e.Addr.Unmap(): // an IPv4-mapped answer is dialled as the IPv4 address it carries (Go's dialer does)
				return fmt.Sprintf("fetched from %s, but the last resolve of %s answered %s: the address checked is not the address used (this time the address used is not internal, but an answer kept from before, or asked again, is what a rebinding name turns inside)",
					e.Addr, quote(e.Name), l.last)
			}
		}
	}
	for _, h := range order {
		l := hosts[h]
		resolves, again, varied := l.resolves, l.again, l.varied
		if l.redirected && spec.IsInternal(l.last) { // the next hop's lookup on the same host, its internal answer refused (a fetch that used it was judged above)
			resolves, again, varied = l.atFetch.resolves, l.atFetch.again, l.atFetch.varied
		}
		if l.fetches > 0 && varied && (again || resolves > l.fetches) {
			return fmt.Sprintf("resolved %d times for %d fetch of %s, the answers differing: SPEC §5 resolves exactly once, so the address checked is the address used (from outside, a guard that checks every answer and dials the last looks the same as one that checks one answer and dials another, which a name that rebinds turns inside)",
				resolves, l.fetches, quote(h))
		}
	}
	return ""
}

// checkBuild judges what the sandbox asked of its world while it was
// built, before its first op. A sandbox may look at its world when it
// opens (an MCP filesystem server resolves its roots at start), but what
// it asks is held to the grant as an op's entries are: confinement, with
// a realpath authorized under any fs_read or fs_write root, and
// no-internal-egress. A violation is at step 0, of no attack class.
func (r *watchedRun) checkBuild() {
	entries := r.world.Journal()[:r.built]
	if len(entries) == 0 {
		return
	}
	cov := &r.cov.Classes[attack.Unlabelled]
	cov.Checked[Confinement]++
	for i := range entries {
		if why := r.unauthorizedAtOpen(&entries[i]); why != "" {
			r.violate(Confinement, attack.Unlabelled, fmt.Sprintf("while the sandbox was built, before any op, the journal shows %s, but %s",
				entryText(entries[i]), why))
			break
		}
	}
	if !slices.ContainsFunc(entries, func(e refworld.Entry) bool { return e.Call == refworld.CallFetch }) {
		return
	}
	cov.Checked[NoInternalEgress]++
	if why := egressProblem(entries, r.model.world.redirects); why != "" {
		r.violate(NoInternalEgress, attack.Unlabelled, "while the sandbox was built, before any op, it "+why)
	}
}

// unauthorizedAtOpen is unauthorized for an entry the sandbox made while
// it was built. No op asked for it, so a realpath is authorized when its
// path passes either allow-list: resolving a root, or a path under one,
// is how a sandbox learns where its roots really lead.
func (r *watchedRun) unauthorizedAtOpen(e *refworld.Entry) string {
	if e.Call != refworld.CallRealpath {
		return r.unauthorized(e, "")
	}
	g := r.grant
	if g.MayRead(e.Name) || g.MayWrite(e.Name) {
		return ""
	}
	if spec.HasTraversal(e.Name) {
		return fmt.Sprintf("%s has a .. segment", quote(e.Name))
	}
	return fmt.Sprintf("%s is under no fs_read root %s and no fs_write root %s", quote(spec.Canonical(e.Name)),
		quoteList(g.FSRead()), quoteList(g.FSWrite()))
}

func (r *watchedRun) checkLatch(s *stepObs) {
	if r.halt == core.Invalid {
		if s.res.Hard {
			r.halt, r.haltStep = s.res.Kind, r.step
			r.haltAt = haltState{usage: s.after, journal: s.journal, clock: s.clock1}
		}
		return
	}
	r.cov.Classes[s.class].Checked[HaltLatched]++
	h := r.haltAt
	var why string
	switch {
	case !s.res.Hard || s.res.Kind != r.halt || s.res.Data != "":
		why = fmt.Sprintf("returned %s", describeResult(s.res))
	case s.after != h.usage:
		why = fmt.Sprintf("moved usage from %+v to %+v", h.usage, s.after)
	case s.journal != h.journal:
		why = fmt.Sprintf("added %d journal entries", s.journal-h.journal)
	case s.clock1 != h.clock:
		why = fmt.Sprintf("read the clock %d more times", s.clock1-h.clock)
	default:
		return
	}
	r.violate(HaltLatched, s.class, fmt.Sprintf("the sandbox halted with %s earlier, but %s %s", r.halt, formatOp(*s.op), why))
}

func (r *watchedRun) checkCharge(s *stepObs) {
	if r.halt != core.Invalid && r.haltStep != r.step {
		return // past the halt: the latch's business
	}
	r.cov.Classes[s.class].Checked[ChargeBeforeDispatch]++
	n := int64(r.step)
	switch {
	case s.after.Ops != n:
		r.violate(ChargeBeforeDispatch, s.class, fmt.Sprintf("%s is op %d past the halt gate, but the sandbox counts %d ops used (it returned %s)",
			formatOp(*s.op), n, s.after.Ops, s.res.Kind))
	case n == r.budgets.MaxOps+1 && (s.res.Kind != core.MaxOps || !s.res.Hard):
		r.violate(ChargeBeforeDispatch, s.class, fmt.Sprintf("%s is op %d with max_ops %d, so it must halt max_ops, but it returned %s",
			formatOp(*s.op), n, r.budgets.MaxOps, describeResult(s.res)))
	}
}

func (r *watchedRun) checkOutput(s *stepObs) {
	r.cov.Classes[s.class].Checked[OutputBounded]++
	r.output += int64(len(s.res.Data))
	if s.res.Data != "" && r.output > r.budgets.MaxOutputBytes {
		r.violate(OutputBounded, s.class, fmt.Sprintf("%s returned %d bytes, bringing the data returned to %d bytes, over max_output_bytes %d",
			formatOp(*s.op), len(s.res.Data), r.output, r.budgets.MaxOutputBytes))
	}
}

// checkVerdict compares the op's result and the usage after it with the
// model's (SPEC §8): a sandbox whose verdicts are right but whose counters
// drift (output counted in runes, wall in clock reads) meters budgets that
// are not SPEC §5's, and halts on the wrong op sooner or later.
func (r *watchedRun) checkVerdict(s *stepObs, want core.Result, why verdictReason) {
	r.cov.Classes[s.class].Checked[VerdictMatchesModel]++
	if s.res != want {
		describe, where := describeResult, trimmedPath(*s.op)
		if s.res.Kind == want.Kind && s.res.Hard == want.Hard {
			describe = describeData // the data alone differs: show it
			where = firstDifference(s.res.Data, want.Data, "the model")
		}
		did := ""
		if isDenial(want.Kind) && !isDenial(s.res.Kind) {
			did = didWords(s.entries)
		}
		r.violate(VerdictMatchesModel, s.class, fmt.Sprintf("%s returned %s, but the model of SPEC §5 gives %s%s: %s%s",
			formatOp(*s.op), describe(s.res), describe(want), where, r.model.explain(why, *s.op), did))
		r.usageParted = r.usageParted || !r.model.usageMatches(s.after)
		return
	}
	got, wrote := lastWrite(s.entries, r.model.wrote, r.model.lands)
	if !wrote && r.model.wrote != "" && !r.world.StandIns() {
		// No write landed where the model's does: the world holds there
		// what the op left (answered ok, and nothing written, or written
		// elsewhere), unless the ok was the model's, standing in for a
		// door's sandbox (its journal, not its answer, is judged then).
		got, _ = r.world.Lookup(r.model.wrote)
		wrote = true
	}
	if wrote && got != s.op.Args[1] {
		left := "holding " + quote(got)
		if got == "" {
			left = "empty or with no file"
		}
		r.violate(VerdictMatchesModel, s.class, fmt.Sprintf("%s returned ok as the model does, but left %s %s where the model of SPEC §5 writes %s%s",
			formatOp(*s.op), quote(r.model.wrote), left, quote(s.op.Args[1]), firstDifference(got, s.op.Args[1], "the model")))
		return
	}
	if r.halt != core.Invalid && r.haltStep != r.step || s.after.Ops != int64(r.step) {
		return // usage past the halt is the latch's to judge, a miscounted op charge-before-dispatch's
	}
	if u := r.model.usage(); !r.model.usageMatches(s.after) {
		r.violate(VerdictMatchesModel, s.class, fmt.Sprintf("%s returned %s as the model does, but left usage ops=%d wall=%d output=%d where the model of SPEC §5 has ops=%d wall=%d output=%d: %s",
			formatOp(*s.op), describeResult(s.res), s.after.Ops, s.after.Wall, s.after.Output, u.Ops, u.Wall, u.Output, usageRule))
		if r.usageParted {
			// Parted at an earlier step, usage differs at every step after:
			// counted, but not this step's own violation.
			r.violated = r.violated[:len(r.violated)-1]
		}
		r.usageParted = true
	}
}

// maxDid is how many of an op's writes didWords names.
const maxDid = 3

// didWords names the writes of an op the model refuses and a sandbox
// allowed: what it wrote says why its answer is judged where a door takes
// a sandbox's answer for a policy of its own unless it does more than
// that policy allows (an MCP server's "dotdot"), which a reader of the
// finding would otherwise look for in the replay's journal. A read shows
// in the data the op returned.
func didWords(entries []refworld.Entry) string {
	var did []string
	for i := range entries {
		if e := &entries[i]; e.Call == refworld.CallWrite {
			did = append(did, entryText(*e)+madeDir(e))
		}
	}
	switch {
	case len(did) == 0:
		return ""
	case len(did) > maxDid:
		return fmt.Sprintf("; it did %s, and %d more", strings.Join(did[:maxDid], ", "), len(did)-maxDid)
	}
	return "; it did " + strings.Join(did, ", ")
}

// lastWrite is the bytes the last write that lands on p among entries
// left there, and false when none did. lands says where a
// write of a path lands: the world stores at the path's Clean, its links
// followed, so "/w//a", or a link to "/w/a", writes "/w/a" as much as
// "/w/a" does. A directory a real sandbox's door journals as made (madeDir)
// is no write of the file's bytes.
func lastWrite(entries []refworld.Entry, p string, lands func(string) string) (string, bool) {
	if p == "" {
		return "", false
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if e := &entries[i]; e.Call == refworld.CallWrite && (e.Name == p || madeDir(e) == "" && lands(e.Name) == p) {
			return e.Arg, true
		}
	}
	return "", false
}

// usageRule is SPEC §5's accounting, said where a sandbox's usage differs.
const usageRule = "ops counts every op past the halt gate, wall is the latest Clock.Now() − t0 (any number once that is past what int64 holds), output adds the bytes of every ok result"
