// Package iprange lists the internal address ranges of SPEC §6, with their
// edges, and the ways a host can spell an address. The generators aim
// their range probes at every edge of every range in every spelling, and
// the SPEC dimension table (package dims) counts which of those points a
// campaign's scenarios hit: both read this one table, so that what is
// drawn and what is counted cannot drift apart.
package iprange

import "net/netip"

// ranges are the internal ranges of SPEC §6, IPv4 then IPv6. The
// IPv4-mapped and NAT64 forms are spellings of IPv4 addresses, not ranges
// of their own; broadcast is the high edge of 240.0.0.0/4.
var ranges = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Ranges returns the internal ranges of SPEC §6, IPv4 then IPv6.
func Ranges() []netip.Prefix { return append([]netip.Prefix(nil), ranges...) }

// Edges returns the first and last addresses of r.
func Edges(r netip.Prefix) (first, last netip.Addr) {
	first = r.Masked().Addr()
	b := first.AsSlice()
	for i := r.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	last, _ = netip.AddrFromSlice(b)
	return first, last
}

// Spellings of an address in a host: the IPv4 forms inet_aton accepts, the
// IPv6 forms, and a name the world's resolver answered with the address.
const (
	Dotted       = iota // 10.1.2.3
	Short               // 10.1 (fewer than four parts)
	Integer             // 167837955 (one decimal part)
	Hex                 // 0xa.1.2.3, 0x0a010203 (a hexadecimal part)
	Octal               // 012.1.2.3 (a part with a leading 0)
	Mapped              // ::ffff:10.1.2.3
	NAT64               // 64:ff9b::a01:203
	Compressed          // fe80::1
	Expanded            // fe80:0:0:0:0:0:0:1
	Bracketed           // [fe80::1]
	Name                // a name a dns line (or SPEC §6's table) resolves to it
	NumSpellings        // how many spellings there are
)

var (
	spellings4 = []int{Dotted, Short, Integer, Hex, Octal, Mapped, NAT64, Name}
	spellings6 = []int{Compressed, Expanded, Bracketed, Name}
)

// SpellingsOf returns the spellings of range r's family, in table order:
// the IPv4 forms (v4-mapped and NAT64 included) for an IPv4 range, the
// IPv6 forms for an IPv6 one, a name for both. The slice is the table's
// own: do not modify it.
func SpellingsOf(r netip.Prefix) []int {
	if r.Addr().Is4() {
		return spellings4
	}
	return spellings6
}
