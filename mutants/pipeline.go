package mutants

import (
	"math"
	"net/netip"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// defect names the one way a sandbox of this package departs from the
// reference. Each switch on it below is marked "DEFECT name": reading the
// file for one name shows everything that mutant does differently.
type defect uint8

const (
	faithful defect = iota // no defect: the reference pipeline, copied

	rawPrefix             // allow-list by strings.HasPrefix on the raw path
	noBoundary            // allow-list on canonical strings, without the root + "/" boundary
	noBelt                // no ".." segment check
	substringDotDot       // any ".." substring is traversal
	actThenCheckWrite     // writes, then checks, then rolls back
	readThenCheck         // reads, then checks the allow-list
	fetchThenCheck        // resolves and fetches, then checks egress
	denyListEgress        // blocks bad hosts instead of allowing granted ones
	lookupBeforeAllowlist // resolves before the host grant check
	noInternalCheck       // never refuses an internal address
	resolveTwice          // checks one DNS answer, fetches with another
	noLatch               // a hard halt does not stick
	chargeAfterDispatch   // refused ops are refunded their op charge
	outputUnchargedFetch  // fetch bodies bypass the output budget
	offByOneOps           // halts at ops >= max_ops
	machineClock          // wall budget from the machine's clock
	leakyGrant            // Grant() hands out the slices it enforces
	zeroMeansUnlimited    // a budget of 0 is no limit
	haltGateCharges       // a halted sandbox still charges ops and reads the clock
	malformedPassthrough  // NUL bytes and invalid UTF-8 reach the world
	noRealpath            // fs paths checked lexically, never resolved
	realpathBeforeCheck   // VFS.Realpath before the lexical checks
	unresolvedWrite       // writes act on the path as asked, unresolved
	realpathUnchecked     // the resolved path is used without the allow-list
	resolveParentOnly     // the parent resolved, the last name appended as written

	internalStringPrefixes // IPv4 ranges judged by string prefixes of the address text
	v6RangeMasks           // fc00::/7 read as fd00::/8, fe80::/10 as fe80::/16
	wallBeforeOps          // step 2 tests max_wall before max_ops
	outputInRunes          // output charged in code points, not bytes
	ignoresClockOverflow   // a tick past 2^63−1 taken at its saturated value
	offByOneOutput         // halts max_output_bytes when output lands on the cap
	budgetPlusOneOverflow  // used >= limit+1, which wraps for math.MaxInt64
	rootItselfDenied       // a root written with "/" is only a prefix: the root itself is out
	hostCaseFold           // net_hosts matched case-insensitively
	nat64Prefix32          // NAT64 unmapped from 64:ff9b::/32, not /96
	noSixToFourUnmap       // 6to4 addresses judged as themselves, never unmapped
	rootsResolvedAtStart   // grant roots resolved through the world's links at build, then trusted
	laterRootsLexical      // only paths under the first root resolved; the other roots checked lexically
	dotlessNamesTrusted    // a granted name with no dot is the cluster's own service: its address is not checked
	noCompatibleUnmap      // IPv4-compatible addresses judged as themselves, never unmapped
	hostFinalDots          // net_hosts matched with the final dots of both names dropped
	nat64LocalUsePublic    // the NAT64 local-use prefix judged as an ordinary IPv6 address
	winTrimCheck           // the allow-list judges each segment with its trailing dots and spaces trimmed
	queryStrippedCheck     // the allow-list judges the path cut at its first ? or #
	firstLineCheck         // the allow-list judges the path's first line only
	truncatedBelt          // the ".." check reads only the path's first 1024 bytes
	teredoCarried          // Teredo judged by the client address it carries
	zoneBlindsPrefixes     // a zoned address is in no range the predicates do not cover
	hostPercentDecoded     // the host percent-decoded before the grant check
	hostIDNAEncoded        // the host's non-ASCII labels Punycode-encoded before the grant check
	toolUniquePrefix       // a tool name that begins exactly one granted name is that tool
	toolNamespaceStripped  // a tool name judged and called after its last ".", ":" or "__"
	toolCallSyntax         // a tool name cut at its first "("
	toolWidthFolded        // fullwidth forms in a tool name folded to ASCII
	toolPercentDecoded     // a tool name percent-decoded
	kindAliases            // MCP's names of the four kinds taken for them
	utf8AboveMax           // UTF-8 checked without the U+10FFFF bound
	modifiedUTF8           // C0 80, modified UTF-8's NUL, taken for valid UTF-8
	malformedBeforeUnknown // the arguments' bytes judged before the kind

	numDefects // one past the last defect
)

// badHosts is deny-list-egress's idea of an egress policy: the hosts its
// author thought of.
var badHosts = []string{"evil.com", "localhost", "127.0.0.1", "169.254.169.254", "metadata.google.internal"}

// authority is the grant as this package's sandboxes enforce it: the lists
// and budgets, copied out of the core.Grant once at build. Every check
// reads these slices, so whoever can write into them changes what the
// sandbox allows.
type authority struct {
	fsRead, fsWrite, hosts, tools []string
	budgets                       core.Budgets
}

// authority is also a core.GrantView, the leaky way: it hands out the very
// slices the checks read. Only leaky-grant ever shows it.
func (a *authority) FSRead() []string      { return a.fsRead }
func (a *authority) FSWrite() []string     { return a.fsWrite }
func (a *authority) NetHosts() []string    { return a.hosts }
func (a *authority) Tools() []string       { return a.tools }
func (a *authority) Budgets() core.Budgets { return a.budgets }

// sandbox is core.Reference's pipeline (SPEC §5), step by step, with one
// defect switched in. With d == faithful it behaves as the reference does,
// op for op and journal entry for journal entry (mutants_test checks this
// on the corpus).
type sandbox struct {
	d      defect
	grant  core.Grant
	auth   authority
	world  core.World
	t0     int64
	start  time.Time // machine-clock only
	usage  core.Usage
	halted core.Kind // the hard kind that latched, or Invalid while running
	// atStart holds roots-resolved-at-start's roots as resolved at build,
	// by the kind that denies them (fs_read_denied, fs_write_denied).
	atStart map[core.Kind][]string
}

func newSandbox(d defect, g core.Grant, w core.World) *sandbox {
	s := &sandbox{
		d:     d,
		grant: g,
		auth:  authority{g.FSRead(), g.FSWrite(), g.NetHosts(), g.Tools(), g.Budgets()},
		world: w,
	}
	if d == machineClock {
		// DEFECT machine-clock: t0 is the machine's time, not the injected
		// clock's. This package is the only place outside cmd/ that reads
		// the machine's clock, and only to be caught doing it.
		s.start = time.Now()
	} else {
		s.t0, _ = w.Now()
	}
	if d == rootsResolvedAtStart {
		// DEFECT roots-resolved-at-start: the roots are resolved once, as a
		// server resolves its allowed directories when it starts, and the
		// answers are what paths are held to from then on.
		s.atStart = map[core.Kind][]string{
			core.FSReadDenied:  resolveAll(w, s.auth.fsRead),
			core.FSWriteDenied: resolveAll(w, s.auth.fsWrite),
		}
	}
	return s
}

// resolveAll is roots resolved through w's links, each kept as written when
// its links loop.
func resolveAll(w core.World, roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = r
		if real, ok := w.Realpath(r); ok {
			out[i] = real
		}
	}
	return out
}

func (d defect) factory() core.Factory {
	return func(g core.Grant, w core.World) (core.Sandbox, error) { return newSandbox(d, g, w), nil }
}

// Usage implements core.Sandbox.
func (s *sandbox) Usage() core.Usage { return s.usage }

// Grant implements core.Sandbox.
func (s *sandbox) Grant() core.GrantView {
	if s.d == leakyGrant {
		// DEFECT leaky-grant: the view is the authority itself; a caller
		// that writes into a slice it was handed widens the grant.
		return &s.auth
	}
	return s.grant // copies, as the reference hands out
}

// Run implements core.Sandbox.
func (s *sandbox) Run(op core.Op) core.Result {
	// 1. Halt gate.
	if s.halted != core.Invalid {
		if s.d == haltGateCharges {
			// DEFECT halt-gate-charges: the meters run before the gate.
			s.usage.Ops++
			s.usage.Wall, _ = s.elapsed()
		}
		return core.Result{Kind: s.halted, Hard: true}
	}
	// 2. Charge.
	s.usage.Ops++
	if s.d == wallBeforeOps {
		// DEFECT wall-before-ops: the clock is read and max_wall tested
		// first, so an op past both budgets halts max_wall. (An op past
		// max_ops alone reads the clock too, but its wall is recorded
		// only once the op has passed max_ops, so that op's usage is the
		// reference's: only the pair of budgets shows the defect.)
		wall, past := s.elapsed()
		if past || s.exceeds(wall, s.auth.budgets.MaxWall) {
			s.usage.Wall = wall
			return s.halt(core.MaxWall)
		}
		if s.opsOver() {
			return s.halt(core.MaxOps)
		}
		s.usage.Wall = wall
		return s.dispatched(op)
	}
	if s.opsOver() {
		return s.halt(core.MaxOps)
	}
	wall, past := s.elapsed()
	s.usage.Wall = wall
	if past || s.exceeds(wall, s.auth.budgets.MaxWall) {
		return s.halt(core.MaxWall)
	}
	return s.dispatched(op)
}

// dispatched is steps 3 to 5, for an op that passed the charge.
func (s *sandbox) dispatched(op core.Op) core.Result {
	// 3. Dispatch, 4. check then effect.
	r := s.dispatch(op)
	if s.d == chargeAfterDispatch && !r.Hard && r.Kind != core.OK && r.Kind != core.NotFound {
		// DEFECT charge-after-dispatch: the op is billed only once it is
		// known to have gone through; a refused op gets its charge back.
		s.usage.Ops--
	}
	return r
}

// opsOver is step 2's op budget test.
func (s *sandbox) opsOver() bool {
	if s.d == offByOneOps {
		// DEFECT off-by-one-ops: op max_ops itself halts.
		return s.usage.Ops >= s.auth.budgets.MaxOps
	}
	return s.exceeds(s.usage.Ops, s.auth.budgets.MaxOps)
}

// exceeds is every budget's test: used is past limit.
func (s *sandbox) exceeds(used, limit int64) bool {
	switch {
	case s.d == zeroMeansUnlimited && limit == 0:
		// DEFECT zero-means-unlimited: 0 reads as "no limit set".
		return false
	case s.d == budgetPlusOneOverflow:
		// DEFECT budget-plus-one-overflow: "at least one past the limit",
		// in int64: for a limit of math.MaxInt64 ("unlimited") limit+1
		// wraps to math.MinInt64 and every use is past it.
		return used >= limit+1
	}
	return used > limit
}

// elapsed reads the clock and returns the ticks since t0, and past=true
// when the tick is past 2^63−1 or the true difference is beyond
// math.MaxInt64 (no budget allows either), exactly as the reference
// saturates.
func (s *sandbox) elapsed() (wall int64, past bool) {
	if s.d == machineClock {
		// DEFECT machine-clock: ambient wall time, a tick read as a second,
		// as a deadline written with time.Second would.
		return int64(time.Since(s.start) / time.Second), false
	}
	now, inRange := s.world.Now()
	if s.d == ignoresClockOverflow {
		// DEFECT ignores-clock-overflow: the clock's ok=false is dropped,
		// and a tick past 2^63−1 counts as its saturated value,
		// math.MaxInt64: a max_wall of at least math.MaxInt64 − t0 lets
		// the op through.
		inRange = true
	}
	wall = now - s.t0
	switch {
	case !inRange, now > s.t0 && wall < 0:
		return math.MaxInt64, true
	case now < s.t0 && wall > 0:
		return math.MinInt64, false
	}
	return wall, false
}

func (s *sandbox) dispatch(op core.Op) core.Result {
	if s.d == malformedBeforeUnknown && !spec.WellFormed(op.Args, len(op.Args)) {
		// DEFECT malformed-before-unknown: the transport checks every
		// argument's bytes before the kind is looked at, so an unknown
		// kind with a NUL or invalid UTF-8 in an argument is malformed_op.
		return core.Result{Kind: core.MalformedOp}
	}
	if k, ok := kindAliasOf[op.Kind]; ok && s.d == kindAliases {
		// DEFECT kind-aliases: an adapter's convenience: the names an MCP
		// server gives the four kinds' tools are the kinds.
		op.Kind = k
	}
	n, known := spec.Arity(op.Kind)
	if !known {
		return core.Result{Kind: core.UnknownOp}
	}
	if !s.wellFormed(op.Args, n) {
		return core.Result{Kind: core.MalformedOp}
	}
	a := op.Args
	switch op.Kind {
	case core.OpRead:
		return s.read(a[0])
	case core.OpWrite:
		return s.write(a[0], a[1])
	case core.OpFetch:
		return s.fetch(a[0], a[1])
	default: // core.OpTool
		return s.tool(a[0], a[1])
	}
}

func (s *sandbox) wellFormed(args []string, n int) bool {
	switch s.d {
	case malformedPassthrough:
		// DEFECT malformed-passthrough: only the argument count is checked.
		return len(args) == n
	case modifiedUTF8:
		// DEFECT modified-utf8: the arguments are validated as Java's
		// modified UTF-8 (DataInput.readUTF, JNI), which writes NUL as the
		// overlong C0 80; the NUL check looks for a zero byte, which C0 80
		// has none of, and the bytes go on as they came: "/work/a\xc0\x80"
		// passes.
		return len(args) == n && !slices.ContainsFunc(args, func(a string) bool {
			return strings.IndexByte(a, 0) >= 0 || !utf8.ValidString(strings.ReplaceAll(a, "\xc0\x80", ""))
		})
	case utf8AboveMax:
		// DEFECT utf8-above-max: a hand-written UTF-8 check (RFC 2279's
		// forms, with the overlong and surrogate checks added since) that
		// never learned RFC 3629's bound: F4 90 80 80 and the F5–F7 leads,
		// past U+10FFFF, pass.
		return len(args) == n && !slices.ContainsFunc(args, func(a string) bool { return strings.IndexByte(a, 0) >= 0 || !boundlessUTF8(a) })
	}
	return spec.WellFormed(args, n)
}

// kindAliasOf is kind-aliases's map from the names MCP servers give the
// four kinds' tools to the kinds.
var kindAliasOf = map[string]string{
	"read_file": core.OpRead, "read_text_file": core.OpRead, "write_file": core.OpWrite,
	"fetch_url": core.OpFetch, "call_tool": core.OpTool,
}

// boundlessUTF8 is utf8-above-max's check: sequences of one to four bytes
// with the right continuation bytes, no overlong form, no surrogate, and
// no upper bound.
func boundlessUTF8(a string) bool {
	for i := 0; i < len(a); {
		b, n := a[i], 0
		switch {
		case b < 0x80:
			i++
			continue
		case b >= 0xc2 && b <= 0xdf:
			n = 1
		case b >= 0xe0 && b <= 0xef:
			n = 2
		case b >= 0xf0 && b <= 0xf7:
			n = 3
		default:
			return false
		}
		if i+n >= len(a) {
			return false
		}
		for k := 1; k <= n; k++ {
			if a[i+k]&0xc0 != 0x80 {
				return false
			}
		}
		if b == 0xe0 && a[i+1] < 0xa0 || b == 0xed && a[i+1] >= 0xa0 || b == 0xf0 && a[i+1] < 0x90 {
			return false // overlong, surrogate, overlong
		}
		i += n + 1
	}
	return true
}

// traversal is the belt: HasTraversal on the raw path.
func (s *sandbox) traversal(p string) bool {
	switch s.d {
	case noBelt:
		// DEFECT no-belt: canonicalization alone is trusted.
		return false
	case substringDotDot:
		// DEFECT substring-dotdot: "/work/..hidden" is refused too.
		return strings.Contains(p, "..")
	case truncatedBelt:
		// DEFECT truncated-belt: the path is copied into a buffer of
		// beltBuf bytes for the check (snprintf cuts it silently), and the
		// effect is given the whole path: a ".." past the buffer is never
		// seen. (Clean then climbs inside the root, or the allow-list
		// refuses what it climbs out to.)
		return spec.HasTraversal(p[:min(len(p), beltBuf)])
	}
	return spec.HasTraversal(p)
}

// under is the suspenders: is p under one of roots?
func (s *sandbox) under(p string, roots []string) bool {
	switch s.d {
	case winTrimCheck:
		// DEFECT win-trim-check: the allow-list normalizes the path as
		// Win32 does, each segment's trailing dots and spaces dropped, and
		// the effect is given the path as written, which a POSIX world
		// does not normalize: "/work./secret" and "/work /secret" are
		// judged as /work/secret and reach siblings of the root. (A
		// segment of dots alone is left as it is: ".." stays the belt's.)
		segs := strings.Split(p, "/")
		for i, g := range segs {
			if t := strings.TrimRight(g, ". "); t != "" {
				segs[i] = t
			}
		}
		return spec.UnderAllowlist(strings.Join(segs, "/"), roots)
	case queryStrippedCheck:
		// DEFECT query-stripped-check: the path is taken for a URL path
		// and judged without what follows its first "?" or "#", a query
		// and a fragment, while the effect is given all of it:
		// "/work?/secret" and "/work#/x" are judged as /work and name
		// siblings of the root.
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
		return spec.UnderAllowlist(p, roots)
	case firstLineCheck:
		// DEFECT first-line-check: the allow-list is a pattern anchored
		// with ^ and $, which match at every line break (Ruby's anchors,
		// a regular expression in multi-line mode): the first line
		// "/work" matches, and the effect is given the whole path,
		// "/work\n/etc/passwd", a sibling of the root.
		p, _, _ = strings.Cut(p, "\n")
		return spec.UnderAllowlist(p, roots)
	case rootItselfDenied:
		// DEFECT root-itself-denied: a root written with a trailing slash
		// is used only as the prefix of what lies below it, so the root
		// itself ("/work" for "/work/") is out. ("/" still holds "/":
		// every absolute path starts with it.) Roots written without the
		// slash are judged as the reference judges them.
		c := spec.Canonical(p)
		for _, r := range roots {
			if !strings.HasSuffix(r, "/") {
				if spec.UnderAllowlist(p, []string{r}) {
					return true
				}
			} else if strings.HasPrefix(c, strings.TrimRight(spec.Canonical(r), "/")+"/") {
				return true
			}
		}
		return false
	case rawPrefix:
		// DEFECT raw-prefix: path.startswith(root), no Clean, no boundary.
		for _, r := range roots {
			if strings.HasPrefix(p, r) {
				return true
			}
		}
		return false
	case noBoundary:
		// DEFECT no-boundary: both sides cleaned, but "/workshop" starts
		// with "/work".
		c := spec.Canonical(p)
		for _, r := range roots {
			if strings.HasPrefix(c, spec.Canonical(r)) {
				return true
			}
		}
		return false
	}
	return spec.UnderAllowlist(p, roots)
}

func (s *sandbox) read(p string) core.Result {
	if s.d == readThenCheck {
		// DEFECT read-then-check: the path is resolved and the file read,
		// then the allow-list decides whether to hand it over.
		if s.traversal(p) {
			return core.Result{Kind: core.PathTraversal}
		}
		r, resolved := s.world.Realpath(p)
		var data string
		var ok bool
		if resolved {
			data, ok = s.world.Read(r)
		}
		if !s.under(p, s.auth.fsRead) {
			return core.Result{Kind: core.FSReadDenied}
		}
		if k := s.resolvedDenial(r, resolved, s.auth.fsRead, core.FSReadDenied); k != core.Invalid {
			return core.Result{Kind: k}
		}
		return s.found(data, ok)
	}
	r, k := s.checkPath(p, s.auth.fsRead, core.FSReadDenied)
	if k != core.Invalid {
		return core.Result{Kind: k}
	}
	data, ok := s.world.Read(r)
	return s.found(data, ok)
}

func (s *sandbox) write(p, data string) core.Result {
	if s.d == unresolvedWrite {
		// DEFECT unresolved-write: the write path kept the lexical checks
		// but never learned to resolve (reads did); the world follows a
		// link at p wherever it leads.
		if k := s.lexicalDenial(p, s.auth.fsWrite, core.FSWriteDenied); k != core.Invalid {
			return core.Result{Kind: k}
		}
		s.world.Write(p, data)
		return core.Result{Kind: core.OK}
	}
	if s.d == actThenCheckWrite {
		// DEFECT act-then-check-write: resolve, snapshot, write, then
		// validate and roll back. The VFS has no delete, so a file that did
		// not exist is "restored" as an empty one.
		r, resolved := s.world.Realpath(p)
		var old string
		if resolved {
			var existed bool
			if old, existed = s.world.Read(r); !existed {
				old = ""
			}
			s.world.Write(r, data)
		}
		k := s.lexicalDenial(p, s.auth.fsWrite, core.FSWriteDenied)
		if k == core.Invalid {
			k = s.resolvedDenial(r, resolved, s.auth.fsWrite, core.FSWriteDenied)
		}
		if k != core.Invalid {
			if resolved {
				s.world.Write(r, old)
			}
			return core.Result{Kind: k}
		}
		return core.Result{Kind: core.OK}
	}
	r, k := s.checkPath(p, s.auth.fsWrite, core.FSWriteDenied)
	if k != core.Invalid {
		return core.Result{Kind: k}
	}
	s.world.Write(r, data)
	return core.Result{Kind: core.OK}
}

// checkPath is fs_read's and fs_write's checks (SPEC §5 step 4): the
// lexical ones on p, then r = VFS.Realpath(p) and the allow-list on r. It
// returns the path the effect acts on, or the kind that refuses p (and
// core.Invalid when none does).
func (s *sandbox) checkPath(p string, roots []string, denied core.Kind) (string, core.Kind) {
	if s.d == realpathBeforeCheck {
		// DEFECT realpath-before-check: the path is resolved first, so a
		// path the lexical checks refuse has already been looked up.
		r, ok := s.world.Realpath(p)
		if k := s.lexicalDenial(p, roots, denied); k != core.Invalid {
			return "", k
		}
		return r, s.resolvedDenial(r, ok, roots, denied)
	}
	if k := s.lexicalDenial(p, roots, denied); k != core.Invalid {
		return "", k
	}
	switch s.d {
	case noRealpath:
		// DEFECT no-realpath: the lexical check is the only check, and the
		// effect names p, which the world follows through its links.
		return p, core.Invalid
	case laterRootsLexical:
		// DEFECT later-roots-lexical: a path under the first root is
		// resolved and held to the roots; one under another root only
		// passed the lexical check, and the effect names it as written.
		if !s.under(p, roots[:1]) {
			return p, core.Invalid
		}
	case resolveParentOnly:
		// DEFECT resolve-parent-only: only the directory is resolved and
		// the last name is appended as written, so a link there is checked
		// as itself and followed by the effect.
		// (A root itself, whose directory is outside the roots, is
		// resolved whole: resolving its parent would be another defect.)
		if c := spec.Canonical(p); s.lexicalDenial(path.Dir(c), roots, denied) == core.Invalid {
			dir, ok := s.world.Realpath(path.Dir(c))
			r := path.Join(dir, path.Base(c))
			return r, s.resolvedDenial(r, ok, roots, denied)
		}
	}
	r, ok := s.world.Realpath(p)
	if s.d == rootsResolvedAtStart {
		// DEFECT roots-resolved-at-start: r is held to the roots as they
		// resolved at build, so a root that is a link (or lies under one)
		// stands for the directory it leads to.
		roots = s.atStart[denied]
	}
	if s.d == realpathUnchecked && ok {
		// DEFECT realpath-unchecked: the path is resolved and r is used,
		// but r is never held to the roots p was.
		return r, core.Invalid
	}
	return r, s.resolvedDenial(r, ok, roots, denied)
}

// lexicalDenial is the checks on the path as asked: traversal, then the
// allow-list. It returns the kind that refuses p, or core.Invalid.
func (s *sandbox) lexicalDenial(p string, roots []string, denied core.Kind) core.Kind {
	if s.traversal(p) {
		return core.PathTraversal
	}
	if !s.under(p, roots) {
		return denied
	}
	return core.Invalid
}

// resolvedDenial is the check on what the path resolved to: not_found for
// links that loop (ok=false), denied when r is under none of roots, else
// core.Invalid.
func (s *sandbox) resolvedDenial(r string, ok bool, roots []string, denied core.Kind) core.Kind {
	if !ok {
		return core.NotFound
	}
	if !s.under(r, roots) {
		return denied
	}
	return core.Invalid
}

// granted is the egress allow-list: host granted, byte for byte.
func (s *sandbox) granted(host string) bool {
	switch s.d {
	case denyListEgress:
		// DEFECT deny-list-egress: every host nobody thought of is fine.
		return !slices.Contains(badHosts, host)
	case hostFinalDots:
		// DEFECT host-final-dots: "a final dot only says the name is
		// absolute", so files.corp.example. and a.test.. pass a grant of
		// files.corp.example and a.test, which name them not.
		return slices.ContainsFunc(s.auth.hosts, func(h string) bool { return strings.TrimRight(h, ".") == strings.TrimRight(host, ".") })
	case hostPercentDecoded, hostIDNAEncoded:
		return slices.Contains(s.auth.hosts, s.respelled(host))
	case hostCaseFold:
		// DEFECT host-case-fold: "DNS names are case-insensitive", so
		// API.internal passes a grant of api.internal, which names it not.
		return slices.ContainsFunc(s.auth.hosts, func(h string) bool { return strings.EqualFold(h, host) })
	}
	return slices.Contains(s.auth.hosts, host)
}

// respelled is the host host-percent-decoded and host-idna-encoded check
// and fetch: the one their URL parser hands them.
func (s *sandbox) respelled(host string) string {
	switch s.d {
	case hostPercentDecoded:
		// DEFECT host-percent-decoded: the host is percent-decoded, as a
		// WHATWG URL's host is: api%2einternal is api.internal.
		if h, err := url.PathUnescape(host); err == nil {
			return h
		}
	case hostIDNAEncoded:
		// DEFECT host-idna-encoded: the host's Unicode labels are written
		// as A-labels, as a URL parser's IDNA step writes them:
		// bücher.example is xn--bcher-kva.example.
		return idnaASCII(host)
	}
	return host
}

// internal is SPEC §6's test on the resolved address.
func (s *sandbox) internal(a netip.Addr) bool {
	switch s.d {
	case noInternalCheck:
		// DEFECT no-internal-check: a granted name is trusted wherever it
		// points.
		return false
	case internalStringPrefixes:
		// DEFECT internal-string-prefixes: IPv4 ranges as prefixes of the
		// dotted text, each range as its first /8 or /16: 172.16.0.0/12
		// misses 172.17–172.31, 100.64.0.0/10 misses 100.65–100.127,
		// 198.18.0.0/15 misses 198.19. (IPv6 is judged as the reference
		// does, mapped and NAT64 forms as the IPv4 text they carry.)
		if u := spec.Unmap(a); u.Is4() {
			text := u.String()
			return slices.ContainsFunc(internalPrefixes, func(p string) bool { return strings.HasPrefix(text, p) })
		}
		return spec.IsInternal(a)
	case v6RangeMasks:
		// DEFECT v6-range-masks: "ULA is fd00::/8" and link-local as
		// fe80::/16: fc00::/8 and fe81::–febf:… are public. (Every other
		// address, the embedding forms of SPEC §6 included, is judged as
		// the reference does.)
		if u := spec.Unmap(a); ula7.Contains(u) || linkLocal10.Contains(u) {
			return ula8.Contains(u) || linkLocal16.Contains(u)
		}
	case nat64Prefix32:
		// DEFECT nat64-prefix-32: "NAT64 is 64:ff9b::" read as the /32 its
		// first two groups name: every address there is judged by its last
		// 32 bits, so the local-use 64:ff9b:1::/48 carrying a public address
		// is fetched, and 64:ff9b::1:0:0, outside the /96, refused.
		if z := a.WithZone(""); nat64Well32.Contains(z) {
			b := z.As16()
			return spec.IsInternal(netip.AddrFrom4([4]byte(b[12:16])))
		}
	case noSixToFourUnmap:
		// DEFECT no-6to4-unmap: 2002::/16 is judged as the IPv6 address it is,
		// which no internal range holds: 2002:7f00:1:: (127.0.0.1 in bits
		// 16–47) is fetched.
		if sixToFour.Contains(a.WithZone("")) {
			return false
		}
	case nat64LocalUsePublic:
		// DEFECT nat64-local-use-public: 64:ff9b:1::/48 is not the
		// well-known /96, so it is neither unmapped nor refused: judged as
		// the IPv6 address it is, which no internal range holds, whatever
		// it carries.
		if nat64Local48.Contains(a.WithZone("")) {
			return false
		}
	case noCompatibleUnmap:
		// DEFECT no-compatible-unmap: ::/96 is judged as the IPv6 address
		// it is, and no internal range holds ::a00:1 (10.0.0.1 in its last
		// 32 bits); :: and ::1, which carry no IPv4 address, stay internal
		// as themselves.
		if z := a.WithZone(""); compatible96.Contains(z) && z != netip.IPv6Unspecified() && z != netip.IPv6Loopback() {
			return false
		}
	case teredoCarried:
		// DEFECT teredo-carried: a Teredo address is judged by the client
		// address it carries, its last 32 bits inverted, as an address
		// library's Teredo accessor hands it out: one carrying a public
		// client is fetched.
		if teredo32.Contains(a.WithZone("")) {
			b := a.As16()
			return spec.IsInternal(netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}))
		}
	case zoneBlindsPrefixes:
		// DEFECT zone-blinds-prefixes: netip's predicates (loopback,
		// private, link-local, multicast, unspecified) judge the classic
		// ranges, zone or not; the rest of SPEC §6 is a prefix list tested
		// with netip.Prefix.Contains, which is false for any address with
		// a zone: a zoned NAT64 address lies in none.
		if a.Zone() != "" {
			u := a.Unmap()
			return u.IsLoopback() || u.IsPrivate() || u.IsLinkLocalUnicast() || u.IsMulticast() || u.IsUnspecified()
		}
	}
	return spec.IsInternal(a)
}

// beltBuf is truncated-belt's buffer: the bytes of a path its ".." check
// reads.
const beltBuf = 1024

// internalPrefixes is internal-string-prefixes's idea of SPEC §6's IPv4
// ranges: exact for the /8s and /16s and /24 (and 224/4, 240/4 spelled
// out one /8 at a time), one /16 short for each wider range.
var internalPrefixes = func() []string {
	ps := []string{"0.", "10.", "127.", "100.64.", "169.254.", "172.16.", "192.0.0.", "192.168.", "198.18."}
	for b := 224; b <= 255; b++ { // multicast, 240/4 and broadcast
		ps = append(ps, strconv.Itoa(b)+".")
	}
	return ps
}()

// v6-range-masks's IPv6 ranges, each with the wrong mask.
var (
	ula8        = netip.MustParsePrefix("fd00::/8")  // fc00::/7 misread
	linkLocal16 = netip.MustParsePrefix("fe80::/16") // fe80::/10 misread
	ula7        = netip.MustParsePrefix("fc00::/7")
	linkLocal10 = netip.MustParsePrefix("fe80::/10")
)

// nat64-prefix-32's NAT64 prefix, and the 6to4 prefix no-6to4-unmap ignores.
var (
	nat64Well32 = netip.MustParsePrefix("64:ff9b::/32") // 64:ff9b::/96 misread
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// no-compatible-unmap's IPv4-compatible prefix, and the NAT64 local-use
// prefix nat64-local-use-public lets through.
var (
	compatible96 = netip.MustParsePrefix("::/96")
	nat64Local48 = netip.MustParsePrefix("64:ff9b:1::/48")
)

// teredo-carried's Teredo prefix.
var teredo32 = netip.MustParsePrefix("2001::/32")

func (s *sandbox) fetch(host, p string) core.Result {
	switch s.d {
	case fetchThenCheck:
		// DEFECT fetch-then-check: the request has left before egress is
		// judged.
		a := s.world.Resolve(host)
		body, ok := s.world.Fetch(host, a, p)
		if !s.granted(host) {
			return core.Result{Kind: core.EgressDenied}
		}
		if s.internal(a) {
			return core.Result{Kind: core.EgressInternal}
		}
		return s.fetched(body, ok)
	case lookupBeforeAllowlist:
		// DEFECT lookup-before-allowlist: every host is resolved, granted
		// or not; the DNS query itself leaks.
		a := s.world.Resolve(host)
		if !s.granted(host) {
			return core.Result{Kind: core.EgressDenied}
		}
		return s.connect(host, a, p)
	}
	if !s.granted(host) {
		return core.Result{Kind: core.EgressDenied}
	}
	if s.d == hostPercentDecoded || s.d == hostIDNAEncoded {
		// DEFECT host-percent-decoded, host-idna-encoded: the client
		// fetches the host the parser handed the check.
		host = s.respelled(host)
	}
	return s.connect(host, s.world.Resolve(host), p)
}

// connect judges the address a granted host resolved to, and fetches.
func (s *sandbox) connect(host string, a netip.Addr, p string) core.Result {
	if s.internal(a) && !s.trustedService(host) {
		return core.Result{Kind: core.EgressInternal}
	}
	if s.d == resolveTwice {
		// DEFECT resolve-twice: the connection resolves the name again;
		// the address checked is not the address used.
		a = s.world.Resolve(host)
	}
	body, ok := s.world.Fetch(host, a, p)
	return s.fetched(body, ok)
}

// trustedService reports whether the mutant lets host reach an internal
// address as a service of its own.
func (s *sandbox) trustedService(host string) bool {
	if s.d != dotlessNamesTrusted {
		return false
	}
	// DEFECT dotless-names-trusted: a name of one label ("db", "intranet")
	// is taken for a service of the guard's own network, as a cluster's
	// or a compose file's services are named, and let through wherever it
	// points; only localhost is still refused. An address literal is
	// judged: its spelling is not a name.
	_, literal := spec.ParseIPLiteral(spec.NormalizeHost(host))
	return !literal && !strings.Contains(host, ".") && !strings.EqualFold(host, "localhost")
}

// fetched is a fetch's answer: not_found, or the body charged as output.
func (s *sandbox) fetched(body string, ok bool) core.Result {
	if ok && s.d == outputUnchargedFetch {
		// DEFECT output-uncharged-fetch: bodies skip the output meter.
		return core.Result{Kind: core.OK, Data: body}
	}
	return s.found(body, ok)
}

func (s *sandbox) tool(name, input string) core.Result {
	name = s.toolName(name)
	if !slices.Contains(s.auth.tools, name) {
		return core.Result{Kind: core.ToolDenied}
	}
	out, ok := s.world.Call(name, input)
	return s.found(out, ok)
}

// toolName is the name a mutant judges and calls for the name an op asks.
func (s *sandbox) toolName(name string) string {
	switch s.d {
	case toolUniquePrefix:
		// DEFECT tool-unique-prefix: a name that begins exactly one granted
		// tool's is that tool, as a command line completes unique prefixes
		// (cobra's EnablePrefixMatching): "summ" is summarize.
		if name == "" || slices.Contains(s.auth.tools, name) {
			return name
		}
		match := ""
		for _, t := range s.auth.tools {
			if strings.HasPrefix(t, name) {
				if match != "" {
					return name // ambiguous
				}
				match = t
			}
		}
		if match != "" {
			return match
		}
	case toolNamespaceStripped:
		// DEFECT tool-namespace-stripped: the name is what follows its
		// namespace, as a router strips "functions.", "default_api:" or
		// "mcp__server__" from what a model calls.
		i := max(strings.LastIndex(name, ".")+1, strings.LastIndex(name, ":")+1)
		if j := strings.LastIndex(name, "__"); j >= 0 {
			i = max(i, j+2)
		}
		return name[i:]
	case toolCallSyntax:
		// DEFECT tool-call-syntax: a name written as a call, "echo()" or
		// "echo(x)", is the function it names.
		if i := strings.IndexByte(name, '('); i >= 0 {
			return name[:i]
		}
	case toolWidthFolded:
		// DEFECT tool-width-folded: the name is NFKC-folded against
		// lookalikes, which makes fullwidth letters ASCII: ｅｃｈｏ is echo.
		return strings.Map(func(r rune) rune {
			if r >= '！' && r <= '～' {
				return r - '！' + '!'
			}
			return r
		}, name)
	case toolPercentDecoded:
		// DEFECT tool-percent-decoded: the name arrives as a path parameter
		// (/tools/{name}) that the router unescapes: %65cho is echo.
		if n, err := url.PathUnescape(name); err == nil {
			return n
		}
	}
	return name
}

// found is an effect's answer: not_found, or data charged as output.
func (s *sandbox) found(data string, ok bool) core.Result {
	if !ok {
		return core.Result{Kind: core.NotFound}
	}
	return s.output(data)
}

// output is step 5: charge the bytes an effect produced, or halt without
// returning them.
func (s *sandbox) output(data string) core.Result {
	n := int64(len(data))
	if s.d == outputInRunes {
		// DEFECT output-in-runes: the meter counts characters, not bytes:
		// "héllo" is 5, not 6.
		n = int64(utf8.RuneCountInString(data))
	}
	if s.d == offByOneOutput && s.usage.Output+n >= s.auth.budgets.MaxOutputBytes {
		// DEFECT off-by-one-output: output landing exactly on the cap is
		// refused.
		return s.halt(core.MaxOutputBytes)
	}
	if s.exceeds(s.usage.Output+n, s.auth.budgets.MaxOutputBytes) {
		return s.halt(core.MaxOutputBytes)
	}
	s.usage.Output += n
	return core.Result{Kind: core.OK, Data: data}
}

func (s *sandbox) halt(k core.Kind) core.Result {
	if s.d == noLatch {
		// DEFECT no-latch: the hard result is returned, the latch never set.
		return core.Result{Kind: k, Hard: true}
	}
	s.halted = k
	return core.Result{Kind: k, Hard: true}
}
