package proxysut

import (
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// The template functions that write a granted host the way a proxy's
// configuration wants it. Hosts reach a profile as a URL carries them
// (wireHosts): an IPv6 literal in brackets.

// canonicalHost is host in the one form Go's net package and IDNA lookup
// leave unchanged, which is the only form an ACL checked that way accepts
// (smokescreen refuses to start on any other): an IP address, in
// brackets or not, as net.IP prints it (compressed, lower case, an
// IPv4-mapped address as the IPv4 address it carries); a name in lower
// case. It is "" for a host no such ACL can hold: an address with a
// zone, a name with an empty label (but for one final dot), a label that
// starts or ends with "-", has "--" as its third and fourth bytes (an
// IDNA A-label, "xn--", among them), or a byte other than a letter, a
// digit, "-" or "_". A profile leaves such a host out, so that the proxy
// refuses it: stricter, never a proxy that cannot start.
func canonicalHost(host string) string {
	if a, err := netip.ParseAddr(spec.Unbracket(host)); err == nil {
		if a.Zone() != "" {
			return ""
		}
		return net.IP(a.AsSlice()).String()
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "" {
		return ""
	}
	for label := range strings.SplitSeq(name, ".") {
		if !plainLabel(label) {
			return ""
		}
	}
	return strings.ToLower(host)
}

// plainLabel reports whether label, in lower case, is a DNS label IDNA
// lookup leaves as it is.
func plainLabel(label string) bool {
	n := len(label)
	if n == 0 || n > 63 || label[0] == '-' || label[n-1] == '-' || n > 4 && label[2:4] == "--" {
		return false
	}
	for i := 0; i < n; i++ {
		c := label[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// trimDot is host without one trailing dot, which SPEC §6 ignores
// ("a.test." is the host "a.test"), for a proxy that will not take a name
// ending in one.
func trimDot(host string) string { return strings.TrimSuffix(host, ".") }

// lowerHosts is hosts in ASCII lower case, each once, in their order:
// for a proxy whose list ignores case and will not start on two entries
// that differ in case alone (Traffic Server's remap.config, nginx's map
// with plain keys), which the grant may hold, two hosts to the model.
func lowerHosts(hosts []string) []string {
	var out []string
	for _, h := range hosts {
		if l := strings.ToLower(h); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}
