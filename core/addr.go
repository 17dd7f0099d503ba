package core

import (
	"encoding/binary"
	"net/netip"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/textscan"
)

// Addresses the world's resolver answers for names that are not literals
// (SPEC §6).
var (
	// LoopbackAddr answers "localhost" and every "*.localhost".
	LoopbackAddr = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	// MetadataAddr answers the cloud metadata names.
	MetadataAddr = netip.AddrFrom4([4]byte{169, 254, 169, 254})
	// PublicAddr answers every other name (TEST-NET-3, never internal).
	PublicAddr = netip.AddrFrom4([4]byte{203, 0, 113, 1})
)

// NormalizeHost returns the form of host the resolver and the router look
// names up by: ASCII letters lowered and one trailing dot removed. Only
// ASCII is folded, as DNS does: "K" (U+212A KELVIN SIGN) stays itself.
func NormalizeHost(host string) string {
	host = strings.TrimSuffix(host, ".")
	if textscan.HasUpperASCII(host) {
		return textscan.LowerASCII(host)
	}
	return host
}

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
	if a, ok := ParseInetAton(h); ok {
		return a
	}
	if a, ok := ParseIPv6Literal(h); ok {
		return a
	}
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return LoopbackAddr
	case h == "metadata.google.internal" || h == "metadata" || h == "instance-data":
		return MetadataAddr
	}
	return PublicAddr
}

// ParseIPv6Literal parses an IPv6 address literal, with or without square
// brackets, zone included ("[fe80::1%eth0]"). IPv4 dotted quads are not
// IPv6 literals; ParseInetAton reads those.
func ParseIPv6Literal(s string) (netip.Addr, bool) {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	if strings.IndexByte(s, ':') < 0 {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a, true
}

// ParseInetAton parses s as glibc's inet_aton(3) does: one to four parts
// separated by dots, each decimal, octal (leading 0) or hexadecimal (leading
// 0x or 0X); in "a.b" the last part fills 24 bits, in "a.b.c" 16, in "a" all
// 32; every part starts with a digit; and, like glibc, anything after
// ASCII white space that ends the last part is ignored.
//
//	127.0.0.1, 127.1, 2130706433, 0x7f000001, 0x7f.1, 0177.0.0.1  -> 127.0.0.1
//	09.1.1.1, 1.2.3.4.5, 256.1.1.1, 0x, 1..1, 1.2.3.             -> not an address
func ParseInetAton(s string) (netip.Addr, bool) {
	var parts [4]uint32
	n := 0
	i := 0
	for {
		v, next, ok := atonPart(s, i)
		if !ok {
			return netip.Addr{}, false
		}
		i = next
		if i < len(s) && s[i] == '.' {
			if n == 3 || v > 0xff {
				return netip.Addr{}, false
			}
			parts[n] = v
			n++
			i++
			continue
		}
		if i < len(s) && !isCSpace(s[i]) {
			return netip.Addr{}, false
		}
		// The last part fills the bytes the earlier ones left.
		if v > uint32(0xffffffff)>>(8*n) {
			return netip.Addr{}, false
		}
		word := v
		for j := 0; j < n; j++ {
			word |= parts[j] << (24 - 8*j)
		}
		return netip.AddrFrom4([4]byte{byte(word >> 24), byte(word >> 16), byte(word >> 8), byte(word)}), true
	}
}

// atonPart reads one part of an inet_aton address at s[i:] the way
// strtoul(s, &end, 0) does after inet_aton has checked for a leading digit.
// It returns the value, the index after the part, and false when the part
// does not start with a digit or exceeds 32 bits.
func atonPart(s string, i int) (uint32, int, bool) {
	if i >= len(s) || !isDigit(s[i]) {
		return 0, i, false
	}
	base := uint64(10)
	if s[i] == '0' {
		base = 8
		if i+2 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && hexVal(s[i+2]) >= 0 {
			base = 16
			i += 2
		}
	}
	var v uint64
	for ; i < len(s); i++ {
		d := hexVal(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		v = v*base + uint64(d)
		if v > 0xffffffff {
			return 0, i, false
		}
	}
	return uint32(v), i, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// nat64 is the well-known NAT64 prefix 64:ff9b::/96; its last 32 bits are
// an IPv4 address.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Unmap returns the IPv4 address behind an IPv4-mapped (::ffff:a.b.c.d) or
// NAT64 (64:ff9b::a.b.c.d) IPv6 address, and any other address as it is,
// without its zone.
func Unmap(a netip.Addr) netip.Addr {
	a = a.WithZone("")
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	return a.Unmap()
}

// IsInternal reports whether a fetch to a would stay inside the
// infrastructure (SPEC §6): after Unmap, unspecified, loopback, private
// (RFC 1918, fc00::/7), link-local (169.254/16, fe80::/10), 0.0.0.0/8,
// 100.64.0.0/10, 192.0.0.0/24, 198.18.0.0/15, multicast, 240.0.0.0/4 and
// broadcast. The zero Addr is internal: an address nobody resolved must not
// be fetched from.
//
//	IsInternal(169.254.169.254) == true    IsInternal(::ffff:10.0.0.1) == true
//	IsInternal(64:ff9b::7f00:1) == true    IsInternal(fd00:ec2::254)   == true
//	IsInternal(100.100.100.200) == true    IsInternal(203.0.113.1)     == false
func IsInternal(a netip.Addr) bool {
	a = Unmap(a)
	if a.Is4() {
		return internal4(a.As4())
	}
	return !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() ||
		a.IsLinkLocalUnicast() || a.IsMulticast()
}

// internal4 is IsInternal for IPv4, as masks over the address's 32 bits.
func internal4(b [4]byte) bool {
	v := binary.BigEndian.Uint32(b[:])
	switch {
	case v>>24 == 0, // 0.0.0.0/8, unspecified included
		v>>24 == 10,                // 10.0.0.0/8
		v>>24 == 127,               // 127.0.0.0/8 loopback
		v&0xffc00000 == 0x64400000, // 100.64.0.0/10
		v>>16 == 0xa9fe,            // 169.254.0.0/16 link-local
		v&0xfff00000 == 0xac100000, // 172.16.0.0/12
		v>>8 == 0xc00000,           // 192.0.0.0/24
		v>>16 == 0xc0a8,            // 192.168.0.0/16
		v&0xfffe0000 == 0xc6120000, // 198.18.0.0/15
		v >= 0xe0000000:            // 224/4 multicast, 240/4, broadcast
		return true
	}
	return false
}
