// Package iprange gives the internal address ranges of SPEC §6 and the
// prefixes of its IPv6 embedding forms (package spec's table) their edges,
// and lists the ways a host can spell an address. The generators aim
// their range probes at every edge of every range in every spelling, and
// the SPEC dimension table (package dims) counts which of those points a
// campaign's scenarios hit: both read this one table, so that what is
// drawn and what is counted cannot drift apart.
package iprange

import (
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// ranges are the internal ranges of SPEC §6, IPv4 then IPv6, and then the
// prefixes of its IPv6 embedding forms (spec.EmbeddingPrefixes): an
// address just outside an embedding prefix is judged as itself, so each
// prefix's edges are a line SPEC §6 draws, as a range's are. Broadcast is
// the high edge of 240.0.0.0/4.
var ranges = func() []netip.Prefix {
	var out []netip.Prefix
	for _, r := range spec.InternalRanges() {
		out = append(out, r.Prefix)
	}
	return append(out, spec.EmbeddingPrefixes()...)
}()

// Ranges returns the internal ranges of SPEC §6, IPv4 then IPv6, then the
// prefixes of its embedding forms.
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
	Compatible          // ::a01:203, ::10.1.2.3 (IPv4-compatible)
	SixToFour           // 2002:a01:203:: (6to4, the address in bits 16–47)
	Compressed          // fe80::1
	Expanded            // fe80:0:0:0:0:0:0:1
	Bracketed           // [fe80::1]
	Name                // a name a dns line (or SPEC §6's table) resolves to it
	NumSpellings        // how many spellings there are
)

var (
	spellings4 = []int{Dotted, Short, Integer, Hex, Octal, Mapped, NAT64, Compatible, SixToFour, Name}
	spellings6 = []int{Compressed, Expanded, Bracketed, Name}
)

// SpellingsOf returns the spellings of range r's family, in table order:
// the IPv4 forms (the four IPv6 embedding forms included) for an IPv4 range, the
// IPv6 forms for an IPv6 one, a name for both. The slice is the table's
// own: do not modify it.
func SpellingsOf(r netip.Prefix) []int {
	if r.Addr().Is4() {
		return spellings4
	}
	return spellings6
}

// Form returns the embedding form an IPv6 address a is in — Mapped,
// NAT64, Compatible or SixToFour (spec.EmbeddingForm) — and false for an
// address in none (IPv4 addresses, :: and ::1, the rest of IPv6). Its zone
// is ignored.
func Form(a netip.Addr) (int, bool) {
	switch spec.EmbeddingForm(a) {
	case "IPv4-mapped":
		return Mapped, true
	case "NAT64":
		return NAT64, true
	case "6to4":
		return SixToFour, true
	case "IPv4-compatible":
		return Compatible, true
	}
	return 0, false
}
