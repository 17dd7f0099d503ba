package door

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// The reasons a real sandbox's refusal of a fetch the model allows is
// counted under (SPEC §14, "stricter"): short, stable labels, derived
// from the op's host. An op gets the first that fits.
const (
	// ReasonIPv6Literal: the host is an IPv6 literal, which a URL carries
	// only in brackets and which guards grant in a spelling of their
	// own.
	ReasonIPv6Literal = "ipv6-literal"
	// ReasonIPv4Spelling: the host is an IPv4 address in a spelling only
	// inet_aton reads ("127.1", "2130706433", "0x7f.1"), which many
	// resolvers take for a name they will not look up.
	ReasonIPv4Spelling = "ipv4-spelling"
	// ReasonUnresolvable: the host is a name DNS cannot carry (an empty
	// label, as in "a.test..", a label over 63 bytes, a byte that is no
	// letter, digit, "-" or "_"), which a real resolver refuses to look
	// up while the model's resolver answers it.
	ReasonUnresolvable = "unresolvable-name"
	// ReasonDocumentation: the sandbox looked the name up, and an answer
	// it got (the address the model fetches from, or another of a later
	// lookup) is in a documentation range (192.0.2.0/24, 198.51.100.0/24,
	// 203.0.113.0/24, 2001:db8::/32),
	// where the world's names resolve: public by SPEC §6, refused by a
	// guard that refuses every special-purpose range. A name refused
	// without a lookup was refused for itself (ReasonRefusedAllowed).
	ReasonDocumentation = "documentation-address"
	// ReasonSpecial: the sandbox looked the name up, and its answer is in
	// another special-purpose range than those (IANA's registries:
	// 2001::/23, 100::/64, 5f00::/16, 240.0.0.0/4 ...; multicast; the
	// deprecated site-local fec0::/10), public by SPEC §6, refused by a
	// guard that refuses such ranges.
	ReasonSpecial = "special-address"
	// ReasonRefusedAllowed: none of the above.
	ReasonRefusedAllowed = "refused-allowed"
	// ReasonAnotherHost: the sandbox fetched another host instead of the
	// op's (a URL parser's reading of it, as Node's of "0x", 0.0.0.0; a
	// relay of its own): no request for the op's host reached the world,
	// one for another did, and where it went is judged. Taken first.
	ReasonAnotherHost = "another-host"
	// ReasonInternalAnswer: the sandbox looked the host up and got an
	// internal answer the model's one lookup of the fetch did not (it
	// looks a name up more than once a fetch, or looked up before a name
	// the model refused, and a rebinding name's next answer is internal):
	// it refused what it saw. Taken before the others.
	ReasonInternalAnswer = "internal-answer"
	// ReasonKeptAnswer: the sandbox refused a name it did not look up in
	// the op but had looked up in an earlier op of the scenario: it
	// refused an answer it kept (a DNS cache), which the model's line has
	// moved past. Taken where the host alone gives no other reason.
	ReasonKeptAnswer = "kept-answer"
	// ReasonFollowedRedirect: the world answered the op's own request
	// with a redirect, whose URL is the model's answer (one request a
	// fetch), and the sandbox, following it, refused its Location or
	// failed after it: where it went is judged. Taken after
	// internal-answer.
	ReasonFollowedRedirect = "followed-redirect"
	// ReasonIPv4Literal: the host is an IPv4 address in dotted-quad
	// form, public by SPEC §6 and in no special-purpose range (a literal
	// in a documentation or another special range is counted there):
	// refused by a sandbox that takes no IP literal (HAProxy asks its DNS
	// server for one) or that refuses the address itself.
	ReasonIPv4Literal = "ipv4-literal"
)

// documentation are the documentation ranges (RFC 5737, RFC 3849).
var documentation = []netip.Prefix{
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32"),
}

// special are the special-purpose ranges of IANA's registries that SPEC
// §6 does not call internal, with multicast and the deprecated site-local
// fec0::/10: where an answer is public by the SPEC but refused by a guard
// that refuses every special range. (An internal range here is harmless:
// a refusal of an internal answer is no stricter op.)
var special = []netip.Prefix{
	netip.MustParsePrefix("192.0.0.0/24"), netip.MustParsePrefix("192.31.196.0/24"),
	netip.MustParsePrefix("192.52.193.0/24"), netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("192.175.48.0/24"), netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/23"), netip.MustParsePrefix("2001:2::/48"),
	netip.MustParsePrefix("2001:3::/32"), netip.MustParsePrefix("2001:4:112::/48"),
	netip.MustParsePrefix("2001:20::/28"), netip.MustParsePrefix("2001:30::/28"),
	netip.MustParsePrefix("2620:4f:8000::/48"), netip.MustParsePrefix("3fff::/20"),
	netip.MustParsePrefix("5f00::/16"), netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("ff00::/8"),
}

// NetReasonAt is NetReason for a fetch the model makes from addr, the
// answer the sandbox got when it looked the name up (the zero Addr: it
// did not; a dotted quad is its own answer): a host answered in a
// documentation range is ReasonDocumentation, in another special-purpose
// range ReasonSpecial, and another dotted quad ReasonIPv4Literal.
func NetReasonAt(host string, addr netip.Addr) string {
	r, h := NetReason(host), spec.NormalizeHost(host)
	quad := isDottedQuad(h)
	if quad && !addr.IsValid() {
		addr = netip.MustParseAddr(h)
	}
	in := func(ps []netip.Prefix) bool {
		return slices.ContainsFunc(ps, func(p netip.Prefix) bool { return p.Contains(spec.Unmap(addr)) })
	}
	switch {
	case r != ReasonRefusedAllowed:
		return r
	case in(documentation):
		return ReasonDocumentation
	case in(special):
		return ReasonSpecial
	case quad:
		return ReasonIPv4Literal
	}
	return r
}

// NetReasonSeen is NetReasonAt for a sandbox that looked host up more
// than once and was answered all, the model's answer addr among them: a
// guard that checks every answer refuses for any of them, so an answer in
// a documentation range, else in another special-purpose one, names the
// reason, whichever lookup it came from.
func NetReasonSeen(host string, addr netip.Addr, all []netip.Addr) string {
	r := NetReasonAt(host, addr)
	for _, a := range all {
		switch NetReasonAt(host, a) {
		case ReasonDocumentation:
			return ReasonDocumentation
		case ReasonSpecial:
			r = ReasonSpecial
		}
	}
	return r
}

// NetReason labels a refusal of a fetch from host that the model allows.
func NetReason(host string) string {
	h := spec.NormalizeHost(host)
	switch {
	case IsIPv6Literal(h):
		return ReasonIPv6Literal
	case IsIPv4Spelling(h) && !isDottedQuad(h):
		return ReasonIPv4Spelling
	case !IsIPv4Spelling(h) && !dnsCarries(h):
		return ReasonUnresolvable
	}
	return ReasonRefusedAllowed
}

// IsIPv6Literal reports whether h is an IPv6 literal, bracketed or not.
func IsIPv6Literal(h string) bool {
	_, ok := spec.ParseIPv6Literal(h)
	return ok
}

// IsIPv4Spelling reports whether h is an IPv4 address in any spelling
// inet_aton reads.
func IsIPv4Spelling(h string) bool {
	_, ok := spec.ParseInetAton(h)
	return ok
}

// isDottedQuad reports whether h is an IPv4 address in its standard
// form, which every resolver takes as it is.
func isDottedQuad(h string) bool {
	a, err := netip.ParseAddr(h)
	return err == nil && a.Is4()
}

// dnsCarries reports whether a resolver asks DNS for name (normalized:
// no trailing dot): labels of 1 to 63 letters, digits, "-" and "_", 253
// bytes in all, not digits and dots alone (Go's resolver, for one, takes
// those for no name).
func dnsCarries(name string) bool {
	if name == "" || len(name) > 253 || strings.Trim(name, "0123456789.") == "" {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
