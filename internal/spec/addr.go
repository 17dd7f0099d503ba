package spec

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Addresses the world's resolver answers for names that are not literals
// (SPEC §6). StaticResolve("localhost"), StaticResolve("metadata") and
// StaticResolve of any other name answer them to other packages.
var (
	loopbackAddr = netip.AddrFrom4([4]byte{127, 0, 0, 1})       // "localhost" and every "*.localhost"
	metadataAddr = netip.AddrFrom4([4]byte{169, 254, 169, 254}) // the cloud metadata names
	publicAddr   = netip.AddrFrom4([4]byte{203, 0, 113, 1})     // every other name (TEST-NET-3, never internal)
)

// NormalizeHost returns the form of host the resolver and the router look
// names up by: ASCII letters lowered and one trailing dot removed. Only
// ASCII is folded, as DNS does: "K" (U+212A KELVIN SIGN) stays itself.
func NormalizeHost(host string) string {
	host = strings.TrimSuffix(host, ".")
	if !hasUpperASCII(host) {
		return host
	}
	b := []byte(host)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// HostName is the name host is resolved by (SPEC §6): host without its
// port when it carries one, as a URL's authority does (a name, or a
// bracketed IPv6 literal, then a colon and decimal digits: the name, or
// the literal in its brackets); any other host as it is, a bare IPv6
// literal included (its last group is no port). The grant still compares
// the whole host, port and all (SPEC §5).
func HostName(host string) string {
	if strings.IndexByte(host, ':') < 0 {
		return host // no port, and no error for SplitHostPort to make
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil || name == "" || port == "" || strings.Trim(port, "0123456789") != "" {
		return host
	}
	if strings.HasPrefix(host, "[") {
		return "[" + name + "]"
	}
	return name
}

// LookupKey is the key SPEC §6 looks host up by: its name (HostName),
// ASCII case folded and one trailing dot dropped (NormalizeHost): a name
// in capitals, with a trailing dot and a port, and the bare name in lower
// case are one lookup.
func LookupKey(host string) string { return NormalizeHost(HostName(host)) }

// StaticResolve answers host as SPEC §6 does when the scenario's DNS table
// has no line for it. The host is normalized first (NormalizeHost).
//
//	StaticResolve("127.1")                  == 127.0.0.1
//	StaticResolve("2130706433")             == 127.0.0.1
//	StaticResolve("0x7f000001")             == 127.0.0.1
//	StaticResolve("0177.0.0.1")             == 127.0.0.1
//	StaticResolve("[::1]")                  == ::1
//	StaticResolve("::ffff:127.0.0.1")       == ::ffff:127.0.0.1
//	StaticResolve("LocalHost.")             == 127.0.0.1
//	StaticResolve("localhost..")            == 203.0.113.1 (one dot is ignored, not two)
//	StaticResolve("a.b.localhost")          == 127.0.0.1
//	StaticResolve("metadata.google.internal") == 169.254.169.254
//	StaticResolve("09.1.1.1")               == 203.0.113.1 (a name: 9 is no octal digit)
//	StaticResolve("api.internal")           == 203.0.113.1
func StaticResolve(host string) netip.Addr { return staticResolve(NormalizeHost(host)) }

// staticResolve is StaticResolve of a host already normalized: normalizing
// twice would drop a second trailing dot, and SPEC §6 ignores exactly one
// ("a.test.." is "a.test.", not "a.test").
func staticResolve(h string) netip.Addr {
	if a, ok := ParseIPLiteral(h); ok {
		return a
	}
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return loopbackAddr
	case h == "metadata.google.internal" || h == "metadata" || h == "instance-data":
		return metadataAddr
	}
	return publicAddr
}

// Unbracket is host without the square brackets of an IPv6 literal
// ("[::1]" is "::1"), any other host as it is.
func Unbracket(host string) string {
	if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
		return host[1 : len(host)-1]
	}
	return host
}

// HostOfRequest is the host a request's Host header names: its port
// dropped ("a.test:8080" is "a.test") and an IPv6 literal's brackets
// ("[::1]:80" and "[::1]" are "::1"); a Host that is no host:port (an
// IPv6 literal a client wrote bare) as it is, brackets dropped.
func HostOfRequest(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return Unbracket(hostport)
}

// SpellsHost reports whether host (a DNS name, or a request's Host without
// its port) names want as SPEC §6 compares names: ASCII case folded, one
// trailing dot ignored, an IPv6 literal with or without its brackets; or,
// want being an IP literal, whether host is a literal of the same address
// in another spelling: an HTTP client or a proxy may write the literal it
// was asked for as it likes ("::ffff:203.0.113.9" as "203.0.113.9",
// "0177.1" as "127.0.0.1") and still connect to exactly it. A zone is no
// part of the address (SPEC §6 judges one without it), and an HTTP client
// writes it or drops it as it likes.
func SpellsHost(want, host string) bool {
	want, host = NormalizeHost(want), NormalizeHost(host)
	if Unbracket(want) == Unbracket(host) {
		return true
	}
	w, wantLiteral := ParseIPLiteral(want)
	a, isLiteral := ParseIPLiteral(host)
	return wantLiteral && isLiteral && w.WithZone("").Unmap() == a.WithZone("").Unmap()
}

// ParseIPLiteral parses host, normalized, as an IP literal of SPEC §6: an
// inet_aton spelling (ParseInetAton) or an IPv6 literal
// (ParseIPv6Literal).
func ParseIPLiteral(host string) (netip.Addr, bool) {
	if a, ok := ParseInetAton(host); ok {
		return a, true
	}
	return ParseIPv6Literal(host)
}

// ParseIPv6Literal parses an IPv6 address literal, with or without square
// brackets, zone included ("[fe80::1%eth0]"). IPv4 dotted quads are not
// IPv6 literals; ParseInetAton reads those.
func ParseIPv6Literal(s string) (netip.Addr, bool) {
	s = Unbracket(s)
	if strings.IndexByte(s, ':') < 0 {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a, true
}

// ParseInetAton parses s as glibc's inet_aton(3) does:
//
//   - ASCII white space (C's isspace) ends the address: what follows it is
//     ignored;
//
//   - what is left is one to four parts separated by dots;
//
//   - every part starts with a digit; "0x" or "0X" followed by at least one
//     more character makes it hexadecimal, any other leading "0" octal,
//     anything else decimal, and all its characters must be digits of that
//     base (so "0x" alone, "08" and "1a" are not parts);
//
//   - every part but the last is at most 255; the last fills the bits the
//     others leave: 32, 24, 16 or 8 of them.
//
//     127.0.0.1, 127.1, 2130706433, 0x7f000001, 0x7f.1, 0177.0.0.1  -> 127.0.0.1
//     09.1.1.1, 1.2.3.4.5, 256.1.1.1, 0x, 1..1, 1.2.3.             -> not an address
func ParseInetAton(s string) (netip.Addr, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return netip.Addr{}, false // the first part starts with no digit: most names
	}
	if i := strings.IndexFunc(s, isCSpace); i >= 0 {
		s = s[:i]
	}
	last := strings.Count(s, ".") // the index of the last part
	if last > 3 {
		return netip.Addr{}, false
	}
	var word uint64
	i := 0
	for p := range strings.SplitSeq(s, ".") {
		v, ok := atonPart(p)
		switch {
		case !ok:
			return netip.Addr{}, false
		case i < last && v > 255: // every part but the last is a byte
			return netip.Addr{}, false
		case i < last:
			word |= v << (24 - 8*i)
		case v >= 1<<(32-8*i): // the last fills the bits the others leave
			return netip.Addr{}, false
		default:
			word |= v
		}
		i++
	}
	return netip.AddrFrom4([4]byte{byte(word >> 24), byte(word >> 16), byte(word >> 8), byte(word)}), true
}

// isCSpace is C's isspace in the "C" locale.
func isCSpace(r rune) bool { return r == ' ' || '\t' <= r && r <= '\r' }

// atonPart reads one part of an inet_aton address: decimal, octal or
// hexadecimal by its prefix.
func atonPart(p string) (uint64, bool) {
	if p == "" || p[0] < '0' || p[0] > '9' {
		return 0, false
	}
	digits, base := p, 10
	switch {
	case len(p) > 2 && (strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X")):
		digits, base = p[2:], 16
	case p[0] == '0':
		base = 8
	}
	v, err := strconv.ParseUint(digits, base, 64)
	return v, err == nil
}

// nat64 is the well-known NAT64 prefix 64:ff9b::/96; its last 32 bits are
// an IPv4 address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Unmap returns the IPv4 address an IPv6 address embeds in one of the
// forms of SPEC §6 — IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
// (::a.b.c.d, other than :: and ::1), NAT64 (64:ff9b::a.b.c.d) and 6to4
// (2002:aabb:ccdd::, the IPv4 address in bits 16–47) — and any other
// address as it is, without its zone. An address just outside one of
// these prefixes is itself.
func Unmap(a netip.Addr) netip.Addr {
	a = a.WithZone("")
	b := a.As16()
	switch {
	case !a.Is6():
		return a
	case a.Is4In6():
		return a.Unmap()
	case compatible.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback(), nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16]))
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6]))
	}
	return a
}

// The prefixes of SPEC §6's embedding forms, and those internal whatever
// they carry.
var (
	mapped     = netip.MustParsePrefix("::ffff:0:0/96")
	compatible = netip.MustParsePrefix("::/96")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	teredo     = netip.MustParsePrefix("2001::/32")
)

// EmbeddingForm names the form of SPEC §6 in which a, an IPv6 address,
// embeds the IPv4 address Unmap finds in it ("IPv4-mapped",
// "IPv4-compatible", "NAT64", "6to4"), or is "" when it embeds none.
func EmbeddingForm(a netip.Addr) string {
	a = a.WithZone("")
	switch {
	case !a.Is6() || Unmap(a) == a:
		return ""
	case a.Is4In6():
		return "IPv4-mapped"
	case nat64.Contains(a):
		return "NAT64"
	case sixToFour.Contains(a):
		return "6to4"
	}
	return "IPv4-compatible"
}

// InternalPrefix names the prefix of SPEC §6 that makes a internal
// whatever it carries ("the NAT64 local-use prefix 64:ff9b:1::/48",
// "Teredo 2001::/32"), or is "" when a is in neither.
func InternalPrefix(a netip.Addr) string {
	switch a = a.WithZone(""); {
	case nat64Local.Contains(a):
		return "the NAT64 local-use prefix 64:ff9b:1::/48"
	case teredo.Contains(a):
		return "Teredo 2001::/32"
	}
	return ""
}

// IsInternal reports whether a fetch to a would stay inside the
// infrastructure (SPEC §6): the NAT64 local-use prefix 64:ff9b:1::/48 and
// Teredo 2001::/32 whatever they carry; else, after Unmap, an address in
// one of InternalRanges. The zero Addr is internal: an address nobody
// resolved must not be fetched from.
//
//	IsInternal(169.254.169.254) == true    IsInternal(::ffff:10.0.0.1) == true
//	IsInternal(64:ff9b::7f00:1) == true    IsInternal(fd00:ec2::254)   == true
//	IsInternal(100.100.100.200) == true    IsInternal(203.0.113.1)     == false
func IsInternal(a netip.Addr) bool {
	if InternalPrefix(a) != "" {
		return true
	}
	a = Unmap(a)
	_, in := InternalRangeOf(a)
	return in || !a.IsValid()
}

// Range is an internal range of SPEC §6 and the name a finding gives it.
type Range struct {
	Prefix netip.Prefix
	Name   string
}

// internalRanges are SPEC §6's internal ranges, IPv4 then IPv6. Every
// part of sbxfuzz that judges, draws, counts or names them reads this one
// table.
var internalRanges = []Range{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network 0.0.0.0/8"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private 10.0.0.0/8"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space 100.64.0.0/10 (carrier-grade NAT)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback 127.0.0.0/8"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local 169.254.0.0/16"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private 172.16.0.0/12"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments 192.0.0.0/24"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private 192.168.0.0/16"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking 198.18.0.0/15"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast 224.0.0.0/4"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved 240.0.0.0/4"},
	{netip.MustParsePrefix("::/128"), "unspecified ::"},
	{netip.MustParsePrefix("::1/128"), "loopback ::1"},
	{netip.MustParsePrefix("fc00::/7"), "unique local fc00::/7"},
	{netip.MustParsePrefix("fe80::/10"), "link-local fe80::/10"},
	{netip.MustParsePrefix("ff00::/8"), "multicast ff00::/8"},
}

// InternalRanges returns SPEC §6's internal ranges, IPv4 then IPv6, as a
// copy the caller may keep.
func InternalRanges() []Range { return append([]Range(nil), internalRanges...) }

// InternalRangeOf returns the internal range a lies in, a itself (its zone
// ignored, an IPv6 form not unmapped: IsInternal does that), and false
// when it lies in none.
func InternalRangeOf(a netip.Addr) (Range, bool) {
	a = a.WithZone("")
	for _, r := range internalRanges {
		if r.Prefix.Contains(a) {
			return r, true
		}
	}
	return Range{}, false
}

// EmbeddingPrefixes returns the prefixes of SPEC §6's IPv6 embedding
// forms — IPv4-mapped, IPv4-compatible, NAT64 and 6to4, whose addresses
// are judged by the IPv4 address they carry (Unmap) — and then the two
// internal whatever they carry (InternalPrefix): the NAT64 local-use
// prefix and Teredo.
func EmbeddingPrefixes() []netip.Prefix {
	return []netip.Prefix{mapped, compatible, nat64, sixToFour, nat64Local, teredo}
}
