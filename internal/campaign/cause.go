package campaign

import (
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// pathCause names a file op's cause for the collector, what a guard that
// lets the op through gets wrong about its path, judged on the path's
// string and the world's links alone:
//
//   - a path with a ".." segment: the traversal (a guard that checks the
//     string before cleaning it);
//   - a path under none of the op's roots, a root's string a prefix of
//     it: the prefix sibling (/workshop under a grant of /work);
//   - any other path under none of them: outside every root (a guard
//     that checks nothing, or was not given the grant, lets every such
//     op through, whatever attack drew it);
//   - a path under a root that names one of the world's links, or lies
//     below one: the link, each apart (a guard that checks the path and
//     not where it leads; one that resolves the file it opens and not
//     the directories on the way, or the other way round, fails at one
//     and not the other, and a new file made through a directory link
//     is not an old file overwritten through a file link).
//
// Each is the op's kind's: a guard may check reads and not writes. A
// path under a root through no link is "": its attack class is its cause.
func pathCause(op core.Op, sc *scenario.Scenario) string {
	shape, ok := pathShapeOf(op, sc)
	if !ok || shape == plainPath {
		return ""
	}
	return op.Kind + ", " + pathShapeWords[shape]
}

// pathShape is what pathCause says of a file op's path.
type pathShape int

const (
	plainPath     pathShape = iota // under a root, through no link
	traversalPath                  // a ".." segment
	siblingPath                    // under no root, a root's string a prefix of it
	outsidePath                    // under no root otherwise
	atLinkPath                     // under a root, a link's own path
	belowLinkPath                  // under a root, below a link
)

// pathShapeWords are pathCause's words for each pathShape.
var pathShapeWords = [...]string{
	plainPath:     "",
	traversalPath: "a traversal",
	siblingPath:   "a prefix sibling of a root",
	outsidePath:   "outside every root",
	atLinkPath:    "at a link under a root",
	belowLinkPath: "below a link under a root",
}

// pathShapeOf is the shape of file op's path, and false for an op that
// is no read or write of a path.
func pathShapeOf(op core.Op, sc *scenario.Scenario) (pathShape, bool) {
	var roots []string
	switch op.Kind {
	case core.OpRead:
		roots = sc.Grant.FSRead
	case core.OpWrite:
		roots = sc.Grant.FSWrite
	default:
		return plainPath, false
	}
	if len(op.Args) == 0 {
		return plainPath, false
	}
	p := op.Args[0]
	c := spec.Canonical(p)
	switch {
	case spec.HasTraversal(p):
		return traversalPath, true
	case !spec.UnderAllowlist(c, roots) && prefixSibling(c, roots):
		return siblingPath, true
	case !spec.UnderAllowlist(c, roots):
		return outsidePath, true
	}
	switch throughLink(c, sc.World.Links) {
	case atLink:
		return atLinkPath, true
	case belowLink:
		return belowLinkPath, true
	}
	return plainPath, true
}

// MinimizedClass is the attack class a minimized finding is labelled
// with, sc being the minimized scenario and step its failing op: the
// class the op was drawn with, unless that class names links that
// minimizing took away, the defect showing without them. A link class
// (an escape, a path below a link, a loop) on a path that meets none of
// sc's links is the class of its path's shape (a traversal, a prefix
// sibling, outside every root; else benign), and a loop on a path that
// resolves is an escape through the link it names, or a path below one.
// A fetch drawn with a class of a path's shape is labelled by its host
// once minimizing has emptied its path (fetchClass).
func MinimizedClass(sc *scenario.Scenario, step int, drawn attack.Class) attack.Class {
	if step <= 0 || step > len(sc.Steps) {
		return drawn
	}
	op := sc.Steps[step-1].Op
	if op.Kind == core.OpFetch {
		return fetchClass(op, sc.Grant, drawn)
	}
	switch drawn {
	case attack.SymlinkEscape, attack.SymlinkParent, attack.SymlinkLoop:
	default:
		return drawn
	}
	shape, ok := pathShapeOf(op, sc)
	if !ok {
		return drawn
	}
	p := op.Args[0]
	met, atEnd := linksOnTheWay(p, sc.World.Links)
	if !met {
		return [...]attack.Class{plainPath: attack.Benign, traversalPath: attack.Traversal, siblingPath: attack.PrefixSibling, outsidePath: attack.OutsideAbsolute}[shape]
	}
	if drawn != attack.SymlinkLoop {
		return drawn
	}
	if _, resolves := refworld.New(sc.World).Realpath(p); !resolves {
		return drawn
	}
	if atEnd {
		return attack.SymlinkEscape
	}
	return attack.SymlinkParent
}

// fetchClass is MinimizedClass for a fetch: one drawn with a class of a
// path's shape whose path minimizing emptied ("" or "/") holds nothing of
// that attack, and is labelled by its host: an IP literal's spelling, a
// host the grant does not list, or else benign.
func fetchClass(op core.Op, g core.GrantSpec, drawn attack.Class) attack.Class {
	switch drawn {
	case attack.Traversal, attack.PrefixSibling, attack.DotSegments, attack.Encoded, attack.Relative, attack.OutsideAbsolute, attack.LongPath:
	default:
		return drawn
	}
	if len(op.Args) != 2 || op.Args[1] != "" && op.Args[1] != "/" {
		return drawn
	}
	host := op.Args[0]
	switch {
	case isIPLiteral(host):
		return attack.IPSpelling
	case !slices.Contains(g.NetHosts, host):
		return attack.UnknownHost
	}
	return attack.Benign
}

// isIPLiteral reports whether host spells an IP address, in any of the
// forms SPEC §6 reads (bracketed or bare IPv6, inet_aton's IPv4).
func isIPLiteral(host string) bool {
	h := spec.NormalizeHost(host)
	if _, ok := spec.ParseIPv6Literal(h); ok {
		return true
	}
	_, ok := spec.ParseInetAton(h)
	return ok
}

// linksOnTheWay reports whether the path p, walked a segment at a time
// (a ".." leaving the directory reached so far, as written: no link is
// followed), reaches the path of one of links on the way, and whether
// the last path it reaches is one.
func linksOnTheWay(p string, links []scenario.Link) (met, atEnd bool) {
	at := map[string]bool{}
	for _, l := range links {
		at[spec.Canonical(l.Path)] = true
	}
	var dir []string
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(dir) > 0 {
				dir = dir[:len(dir)-1]
			}
			atEnd = len(dir) > 0 && at["/"+strings.Join(dir, "/")]
			continue
		}
		dir = append(dir, seg)
		atEnd = at["/"+strings.Join(dir, "/")]
		met = met || atEnd
	}
	return met, atEnd
}

// contentCause names the cause of a verdict-matches-model finding whose
// op got the model's verdict with other bytes, or left other bytes or
// usage than the model's, read in the oracle's words: what the sandbox
// does to data (a carriage return dropped, a path trimmed, a meter off),
// whatever attack drew the op, each the op's kind's. "" for any other
// finding: a verdict of another kind is its attack class's.
func contentCause(op core.Op, f oracle.Finding) string {
	if f.Invariant != oracle.VerdictMatchesModel {
		return ""
	}
	rest, ok := strings.CutPrefix(f.Detail, judge.FormatOp(op)+" returned ")
	if !ok {
		return ""
	}
	switch {
	case strings.HasPrefix(rest, "ok as the model does, but left usage "):
		return op.Kind + ", usage other than the model's"
	case strings.HasPrefix(rest, "ok as the model does, but left "):
		return op.Kind + ", a file left other than written"
	}
	// "KIND with DATA, but the model of SPEC §5 gives KIND with DATA": the
	// kinds alike, the data quoted (or "no data") on both sides.
	kind, after, ok := strings.Cut(rest, " with ")
	if !ok {
		return ""
	}
	if after, ok = skipData(after); !ok || !strings.HasPrefix(after, ", but the model of SPEC §5 gives "+kind+" with ") {
		return ""
	}
	return op.Kind + ", data other than the model's"
}

// skipData returns what follows the data a finding's words quote at the
// start of s (a Go-quoted string, cut as the oracle cuts a long one, or
// "no data"), and false when s starts with neither.
func skipData(s string) (string, bool) {
	if rest, ok := strings.CutPrefix(s, "no data"); ok {
		return rest, true
	}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", false
	}
	s = s[len(q):]
	if rest, ok := strings.CutPrefix(s, "… ("); ok { // "… (N bytes in all)" after a cut one
		if _, after, found := strings.Cut(rest, " bytes in all)"); found {
			return after, true
		}
		return "", false
	}
	return s, true
}

// prefixSibling reports whether a root's string, its trailing slash
// cut, is a prefix of the canonical path c (which lies under none).
func prefixSibling(c string, roots []string) bool {
	for _, r := range roots {
		if dir := strings.TrimSuffix(spec.Canonical(r), "/"); dir != "" && strings.HasPrefix(c, dir) {
			return true
		}
	}
	return false
}

// How a path meets the world's links (throughLink).
const (
	noLink    = iota
	atLink    // the path is a link's
	belowLink // the path lies below a link (and is none's)
)

// throughLink says how the canonical path c meets links: it is one of
// them, or lies below one, or neither.
func throughLink(c string, links []scenario.Link) int {
	how := noLink
	for _, l := range links {
		lp := spec.Canonical(l.Path)
		switch {
		case c == lp:
			return atLink
		case strings.HasPrefix(c, strings.TrimSuffix(lp, "/")+"/"):
			how = belowLink
		}
	}
	return how
}

// fetchCause names the cause of a finding at step i of sc, a fetch: its
// host's (hostCause), with two exceptions.
//
// Where the world answers a granted host of a public address with a
// redirect to an internal one, the redirect's target's ("a redirect to
// IPv4 dotted, shared address space ..."): a sandbox that follows it
// reaches the Location's host, and a guard that checks redirects misses
// what it misses there.
//
// Where the model's own lookup at that op answers a rebinding name's
// internal address, that address's range: a sandbox that looks the name
// up once a fetch, as the model does, was answered it too, so what it
// missed is the range, not a second lookup. (One that looks twice a fetch
// fails at the name's first fetch, where the model is answered public.)
func fetchCause(sc *scenario.Scenario, i int) string {
	host, path := sc.Steps[i].Op.Args[0], sc.Steps[i].Op.Args[1]
	dns := sc.World.DNS
	if to, ok := redirectTarget(sc.World.Routes, host, path); ok && slices.Contains(sc.Grant.NetHosts, host) &&
		!spec.IsInternal(firstAddr(host, dns)) && spec.IsInternal(firstAddr(to, dns)) {
		return "a redirect to " + hostCause(to, dns)
	}
	cause := hostCause(host, dns)
	if cause == rebindingCause {
		if a, ok := modelAnswer(sc, i); ok && spec.IsInternal(a) {
			return "name of " + addrCause(a)
		}
	}
	return cause
}

// rebindingCause is hostCause's cause for a name whose dns line answers
// public first and then internal.
const rebindingCause = "name rebinding"

// redirectTarget is the host named by the Location of the redirect route
// the world answers a request for host and path with, when there is one
// and it names a host (not a path, which stays on host).
func redirectTarget(routes []scenario.Route, host, path string) (string, bool) {
	h := spec.NormalizeHost(host)
	for _, r := range routes {
		if !r.Redirect || r.Path != path || spec.NormalizeHost(r.Host) != h {
			continue
		}
		u, err := url.Parse(r.Body)
		if err != nil || u.Hostname() == "" {
			return "", false
		}
		return u.Hostname(), true
	}
	return "", false
}

// firstAddr is the address host names, or the first its dns line
// answers: hostCause's reading of it.
func firstAddr(host string, dns []scenario.DNSRecord) netip.Addr {
	h := spec.LookupKey(host)
	if a, ok := spec.ParseIPLiteral(h); ok {
		return a
	}
	for _, d := range dns {
		if spec.LookupKey(d.Host) == h && len(d.Addrs) > 0 {
			return d.Addrs[0]
		}
	}
	return spec.StaticResolve(h)
}

// modelAnswer is the answer the model's lookup gets at step i of sc, a
// granted fetch of a name with a dns line: SPEC §5 looks a host up once
// for each well-formed fetch of it that passes the grant, so the line has
// moved on once for each earlier such fetch of the name. (A budget's halt
// stops every lookup after it, and a fetch after one fails nothing.) An
// op the grant refuses looks nothing up: false.
func modelAnswer(sc *scenario.Scenario, i int) (netip.Addr, bool) {
	looks := func(op core.Op) bool {
		return op.Kind == core.OpFetch && spec.WellFormed(op.Args, 2) && slices.Contains(sc.Grant.NetHosts, op.Args[0])
	}
	if !looks(sc.Steps[i].Op) {
		return netip.Addr{}, false
	}
	h := spec.LookupKey(sc.Steps[i].Op.Args[0])
	var addrs []netip.Addr
	for _, d := range sc.World.DNS {
		if spec.LookupKey(d.Host) == h {
			addrs = d.Addrs
			break
		}
	}
	if len(addrs) == 0 {
		return netip.Addr{}, false
	}
	n := 0
	for _, st := range sc.Steps[:i] {
		if looks(st.Op) && spec.LookupKey(st.Op.Args[0]) == h {
			n++
		}
	}
	return addrs[n%len(addrs)], true
}

// hostCause names a fetch's cause for the collector, what a guard that
// lets the fetch through gets wrong: for a dotted IPv4 address, an IPv6
// literal or a name, the range of SPEC §6 the address it names is in (a
// guard that misses the range misses it however it is spelled); for an
// IPv4 address in another spelling inet_aton reads, that spelling (a
// guard that misreads hex misreads it whatever it carries); for an
// address in an IPv6 form that embeds an IPv4 one, that form. A name's
// address is its dns line's first answer, else SPEC §6's fixed answer; a
// name whose line answers public first and then internal is a rebinding,
// whatever it answers: a guard that checks one lookup and connects with
// another lets each through. One whose answers are all public, and
// differ, is not.
func hostCause(host string, dns []scenario.DNSRecord) string {
	h := spec.LookupKey(host)
	if a, ok := spec.ParseIPv6Literal(h); ok {
		return "IPv6 literal, " + addrCause(a)
	}
	if a, ok := spec.ParseInetAton(h); ok {
		if sp := ipv4Spelling(h); sp != "IPv4 dotted" {
			return sp
		}
		return "IPv4 dotted, " + addrCause(a)
	}
	for _, d := range dns {
		if spec.LookupKey(d.Host) != h || len(d.Addrs) == 0 {
			continue
		}
		if len(d.Addrs) > 1 && !spec.IsInternal(d.Addrs[0]) {
			if slices.ContainsFunc(d.Addrs[1:], spec.IsInternal) {
				return rebindingCause
			}
			// A guard that looks the name up more than once is caught
			// by public answers that differ (SPEC §5 resolves once),
			// but a rebinding is the stronger finding, and one
			// minimized must not shrink to this one.
			return "name of public answers that differ"
		}
		return "name of " + addrCause(d.Addrs[0])
	}
	return "name of " + addrCause(spec.StaticResolve(h))
}

// ipv4Spelling names how h, which inet_aton reads, spells its address.
func ipv4Spelling(h string) string {
	parts := strings.Split(h, ".")
	switch {
	case strings.Contains(strings.ToLower(h), "0x"):
		return "IPv4 in hex"
	case len(parts) == 1:
		return "IPv4 as one number"
	}
	for _, p := range parts {
		if len(p) > 1 && p[0] == '0' {
			return "IPv4 in octal"
		}
	}
	if len(parts) < 4 {
		return "IPv4 shortened"
	}
	return "IPv4 dotted"
}

// addrCause names what a is: an address in an IPv6 form that embeds an
// IPv4 one (that form), or in a prefix internal whatever it carries, or
// in an internal range, or public.
func addrCause(a netip.Addr) string {
	if p := spec.InternalPrefix(a); p != "" {
		return p
	}
	if form := spec.EmbeddingForm(a); form != "" {
		return "an address in " + form + " form"
	}
	if r, ok := spec.InternalRangeOf(a); ok {
		return r.Name
	}
	if !a.IsValid() {
		return "no address"
	}
	return "public"
}

// refusedLookupCause is the cause of a fetch the sandbox refused after
// it looked the op's host up, where the model refuses it before any
// lookup (SPEC §5 checks the grant first): a guard that resolves every
// host before its allow-list leaks each refused name to DNS, whatever
// the name answers, so its confinement and no-effect-on-denial findings
// are one cause, not one for each range the answers fall in.
const refusedLookupCause = "net_fetch, a host looked up, then refused"

// lookupCause is refusedLookupCause for a confinement or
// no-effect-on-denial finding at op, a fetch the model refuses, whose
// only effect on the world was a lookup of the op's own host, read in the
// oracle's words; "" for any other. A refusal that also connected is
// judged by its host, as any fetch that left, and a lookup of another
// name (one the sandbox chose, a redirect's target) by the op's host.
func lookupCause(op core.Op, f oracle.Finding) string {
	at := judge.FormatOp(op)
	var looked string // "NAME -> ADDR..." of the resolve the words name
	switch f.Invariant {
	case oracle.Confinement:
		// "OP returned KIND and the journal shows resolve ...", with
		// ", and then fetch ..." when a connection followed.
		rest, ok := strings.CutPrefix(f.Detail, at+" returned ")
		if !ok {
			return ""
		}
		kind, after, ok := strings.Cut(rest, " and the journal shows resolve ")
		if !ok || kind == core.OK.String() || kind == core.NotFound.String() || strings.Contains(kind, " with ") ||
			strings.Contains(after, ", and then ") {
			return ""
		}
		looked = after
	case oracle.NoEffectOnDenial:
		// "OP was refused with KIND, but the world changed: the journal
		// gained 1 entries, first "resolve ..."", with " where the model
		// allows the op" after KIND when the refusal was the sandbox's
		// alone.
		rest, ok := strings.CutPrefix(f.Detail, at+" was refused with ")
		if !ok {
			return ""
		}
		kind, after, ok := strings.Cut(rest, ", but the world changed: ")
		if !ok || strings.Contains(kind, " where the model allows") ||
			strings.HasSuffix(after, "and the VFS content changed") {
			return ""
		}
		entry, ok := strings.CutPrefix(after, "the journal gained 1 entries, first ")
		if !ok {
			return ""
		}
		q, err := strconv.QuotedPrefix(entry) // the entry's text, quoted
		if err != nil {
			return ""
		}
		if entry, err = strconv.Unquote(q); err != nil {
			return ""
		}
		if looked, ok = strings.CutPrefix(entry, "resolve "); !ok {
			return ""
		}
	default:
		return ""
	}
	name, ok := resolvedName(looked)
	if !ok || len(op.Args) == 0 {
		return ""
	}
	n, h := spec.NormalizeHost(name), spec.NormalizeHost(op.Args[0])
	// A long name is quoted cut, its length said after the entry.
	if n != h && !(strings.Contains(looked, "bytes in all)") && strings.HasPrefix(h, n)) {
		return ""
	}
	return refusedLookupCause
}

// ownHostCause names the cause of a confinement finding at step i of sc,
// a fetch, whose ungranted host is none the scenario names at that op
// (not the op's, nor its redirect's Location's): a host of the
// sandbox's own choosing, such as a reader service a fetch tool relays
// every URL to (read-web-page-mcp's r.jina.ai). It is one defect at
// every op, whatever host the op asked, so the cause is that host's;
// "" for any other finding.
func ownHostCause(sc *scenario.Scenario, i int, f oracle.Finding) string {
	if f.Invariant != oracle.Confinement {
		return ""
	}
	_, rest, ok := strings.Cut(f.Detail, ", but ")
	for ok && !strings.HasPrefix(rest, `"`) {
		_, rest, ok = strings.Cut(rest, ", but ")
	}
	if !ok {
		return ""
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil || !strings.HasPrefix(rest[len(q):], " is not a granted host") {
		return ""
	}
	h, err := strconv.Unquote(q)
	if err != nil {
		return ""
	}
	op := sc.Steps[i].Op
	if spec.SpellsHost(op.Args[0], h) {
		return ""
	}
	for _, r := range sc.World.Routes {
		// A page's links, frames and refreshes, and a redirect's
		// Location (the op's, or one further along a chain), name hosts
		// the world led the sandbox to.
		if namesHost(r.Body, h) {
			return ""
		}
	}
	return "net_fetch, a host of the sandbox's own: " + ownDomain(h)
}

// namesHost reports whether text holds a URL whose host is host, in any
// spelling of it (spec.SpellsHost): the authority after a "//", its
// user and port dropped.
func namesHost(text, host string) bool {
	for rest := text; ; {
		_, after, ok := strings.Cut(rest, "//")
		if !ok {
			return false
		}
		rest = after
		end := strings.IndexAny(after, "/?#\"' <>\\\t\r\n")
		if end < 0 {
			end = len(after)
		}
		authority := after[:end]
		if i := strings.LastIndexByte(authority, '@'); i >= 0 {
			authority = authority[i+1:]
		}
		if hp, _, err := net.SplitHostPort(authority); err == nil {
			authority = hp
		}
		if authority != "" && spec.SpellsHost(authority, host) {
			return true
		}
	}
}

// ownDomain is the part of a host of the sandbox's own that stays the
// same from fetch to fetch: a name's last two labels (a service's,
// whatever name under it carries data out through DNS), an address as it
// is. Under a public suffix of two labels (co.uk) that is the suffix, and
// two services there share a cause.
func ownDomain(host string) string {
	h := spec.NormalizeHost(host)
	if _, ok := spec.ParseIPLiteral(h); ok {
		return h
	}
	labels := strings.Split(h, ".")
	if len(labels) <= 2 {
		return h
	}
	return "*." + strings.Join(labels[len(labels)-2:], ".")
}

// resolvedName reads NAME from the text of a resolve entry after its
// "resolve ", "NAME -> ADDR...", NAME quoted as the journal quotes a name
// that holds a space or a control byte.
func resolvedName(text string) (string, bool) {
	if !strings.HasPrefix(text, `"`) {
		name, _, ok := strings.Cut(text, " -> ")
		return name, ok
	}
	q, err := strconv.QuotedPrefix(text)
	if err != nil || !strings.HasPrefix(text[len(q):], " -> ") {
		return "", false
	}
	name, err := strconv.Unquote(q)
	return name, err == nil
}

// failureContext begins the clauses of a failure's words that say what a
// process printed before (its stderr's tail, lines of its stdout), which
// a process kept from scenario to scenario fills with earlier ops' words:
// failureCause leaves them out.
var failureContext = []string{"; its stderr ends:", "; it wrote "}

// digits are the numbers failureCause writes N.
var digits = regexp.MustCompile(`[0-9]+`)

// maxFailureWords bounds the words of a failure that failureCause keeps.
const maxFailureWords = 120

// failureCause names a total finding's cause: its op's kind, and how the
// sandbox failed, in the finding's words with the op's own text and what
// it printed before taken out, what differs from run to run folded
// (foldVarying), and each number written N. One failure met
// at every op (a sandbox that cannot load its grant and fails each fetch
// so, whatever the host; one that echoes a path into its answers,
// whatever request it forges an answer of) is one cause, not one for each
// host, path or request id, and a hang is not a crash.
func failureCause(op core.Op, detail string) string {
	words := strings.TrimPrefix(detail, judge.FormatOp(op)+" ")
	for _, a := range op.Args {
		words = replaceWord(words, a, "…")
	}
	for _, context := range failureContext {
		if i := strings.Index(words, context); i >= 0 {
			words = words[:i]
		}
	}
	words = digits.ReplaceAllString(foldVarying(words), "N")
	if len(words) > maxFailureWords {
		words = strings.ToValidUTF8(words[:maxFailureWords], "") + "…"
	}
	return op.Kind + ", failing: " + words
}

// replaceWord is s with each occurrence of w that no letter or digit
// touches replaced by with: an op's argument "ab" is cut out of "open ab:"
// but not out of "(about)". A word of one byte is left: "a" would be cut
// out of "(a hang)" too.
func replaceWord(s, w, with string) string {
	if len(w) < 2 {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is written
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			b.WriteString(s[done:])
			return b.String()
		}
		i += from
		end := i + len(w)
		if !wordByte(s, i-1) && !wordByte(s, end) {
			b.WriteString(s[done:i] + with)
			done = end
		}
		from = end
	}
}

// wordByte reports whether s[i] is an ASCII letter or digit (false past
// either end).
func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// tempEntry matches a temporary directory's entry in a failure's words: a
// name made afresh for each run (mktemp's, os.MkdirTemp's), written "…"
// after its temporary directory.
var tempEntry = regexp.MustCompile(`((?:^|[\s"'=:(\[])(?:/private)?(?:/tmp|/var/tmp|/dev/shm|/var/folders/…/T))/[^\s"':/\\]+`)

// macTempDir matches the per-user part of a macOS temporary directory's
// path, drawn for each user, written "…".
var macTempDir = regexp.MustCompile(`/var/folders/[^\s"':/]+/[^\s"':/]+/T/`)

// winTempEntry is tempEntry for a Windows temporary directory's entry.
var winTempEntry = regexp.MustCompile(`(\\Temp)\\[^\s"':\\/]+`)

// hexWord matches a word that reads as a hexadecimal number with a digit
// and a letter in it (an address, an id, a hash), or one written 0x.
var hexWord = regexp.MustCompile(`\b(?:0[xX][0-9A-Fa-f]+|[0-9A-Fa-f]*(?:[0-9][0-9A-Fa-f]*[A-Fa-f]|[A-Fa-f][0-9A-Fa-f]*[0-9])[0-9A-Fa-f]*)\b`)

// mixedWord matches a word of letters and digits long enough, and mixed
// enough, to be a name drawn at random (a token, a random suffix); it is
// folded when it has two digits and two letters at least.
var mixedWord = regexp.MustCompile(`[A-Za-z0-9]{8,}`)

// foldVarying writes "…" for what a failure's words name afresh on each
// run, where the failure is the same: a temporary directory's entry, a
// hexadecimal word, a random-looking word of letters and digits. Without
// it each check of a sandbox that fails so would be a cause of its own.
func foldVarying(words string) string {
	words = macTempDir.ReplaceAllString(words, "/var/folders/…/T/")
	words = tempEntry.ReplaceAllString(words, "$1/…")
	words = winTempEntry.ReplaceAllString(words, `$1\…`)
	words = hexWord.ReplaceAllStringFunc(words, func(w string) string {
		if len(w) < 4 {
			return w
		}
		return "…"
	})
	return mixedWord.ReplaceAllStringFunc(words, func(w string) string {
		if looksDrawn(w) {
			return "…"
		}
		return w
	})
}

// looksDrawn reports whether a word of letters and digits has at least
// two of each: a name drawn at random more likely than a word.
func looksDrawn(w string) bool {
	letters, nums := 0, 0
	for _, r := range w {
		if r >= '0' && r <= '9' {
			nums++
		} else {
			letters++
		}
	}
	return letters >= 2 && nums >= 2
}
