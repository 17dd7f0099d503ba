package oracle

import (
	"net/netip"
	"strings"
)

// The model's static resolver, SPEC §6 read as a list: the first line that
// matches a name decides its address. (The dns lines of the scenario come
// before all of these; modelWorld.resolve asks them first.)
var (
	modelLoopback = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	modelMetadata = netip.AddrFrom4([4]byte{169, 254, 169, 254})
	modelPublic   = netip.AddrFrom4([4]byte{203, 0, 113, 1})
)

// staticAnswer resolves a name already in hostKey form, with no dns line:
//
//  1. an IPv4 literal in any spelling inet_aton accepts is itself;
//  2. an IPv6 literal, bracketed or not, is itself;
//  3. localhost and every *.localhost are 127.0.0.1;
//  4. metadata.google.internal, metadata and instance-data are 169.254.169.254;
//  5. every other name is 203.0.113.1.
func staticAnswer(name string) netip.Addr {
	if a, ok := atonAddress(name); ok {
		return a
	}
	if a, ok := ipv6Literal(name); ok {
		return a
	}
	lastLabel := name[strings.LastIndexByte(name, '.')+1:]
	switch {
	case lastLabel == "localhost":
		return modelLoopback
	case name == "metadata.google.internal", name == "metadata", name == "instance-data":
		return modelMetadata
	}
	return modelPublic
}

// hostKey is the name the resolver and the router compare: ASCII letters
// folded to lower case (only ASCII: DNS folds nothing else), and exactly
// one trailing dot dropped, so "a.test." is "a.test" but "a.test.." is
// "a.test.", another name.
func hostKey(host string) string {
	if n := len(host); n > 0 && host[n-1] == '.' {
		host = host[:n-1]
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; 'A' <= c && c <= 'Z' {
			return foldFrom(host, i)
		}
	}
	return host
}

// foldFrom lowers the ASCII letters of s, whose first upper-case letter is
// at i.
func foldFrom(s string, i int) string {
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] |= 0x20
		}
	}
	return string(b)
}

// ipv6Literal reads an IPv6 address, in square brackets or not, zone
// included. A dotted IPv4 address, even in brackets, is not one.
func ipv6Literal(s string) (netip.Addr, bool) {
	if !strings.Contains(s, ":") { // every IPv6 text form has one; a name seldom does (and a failed parse allocates)
		return netip.Addr{}, false
	}
	if inner, ok := strings.CutPrefix(s, "["); ok {
		if inner, ok = strings.CutSuffix(inner, "]"); ok {
			s = inner
		}
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return netip.Addr{}, false
	}
	return a, true
}

// atonAddress reads s as C's inet_aton does (glibc), stated as rules:
//
//   - the address ends at the first ASCII white space (C's isspace); what
//     follows is ignored;
//   - it is one to four parts, separated by single dots;
//   - a part is a C integer literal: "0x" or "0X" and hex digits, or "0"
//     and octal digits, or a decimal number not starting with 0; as
//     strtoul reads it, "0x" with no hex digit after it is not a part;
//   - the parts but the last are bytes (at most 255); the last fills what
//     is left of the 32 bits: all of them alone, 24 after one byte, 16
//     after two, 8 after three.
func atonAddress(s string) (netip.Addr, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' { // most names: the first part starts with no digit
		return netip.Addr{}, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || '\t' <= c && c <= '\r' {
			s = s[:i]
			break
		}
	}
	var word uint32
	rest := s
	for bits := 32; ; bits -= 8 {
		part, more, hasDot := strings.Cut(rest, ".")
		v, ok := cInteger(part)
		if !ok {
			return netip.Addr{}, false
		}
		if !hasDot { // the last part: it must fit the bits that are left
			if bits < 32 && v>>bits != 0 {
				return netip.Addr{}, false
			}
			word |= uint32(v)
			break
		}
		if bits == 8 || v > 255 { // a fifth part, or a part that is no byte
			return netip.Addr{}, false
		}
		word |= uint32(v) << (bits - 8)
		rest = more
	}
	return netip.AddrFrom4([4]byte{byte(word >> 24), byte(word >> 16), byte(word >> 8), byte(word)}), true
}

// cInteger reads a whole string as one C integer literal of at most 32
// bits: hexadecimal after "0x"/"0X", octal after a leading "0", decimal
// otherwise. Every byte must be a digit of its base.
func cInteger(p string) (uint64, bool) {
	if p == "" || p[0] < '0' || p[0] > '9' {
		return 0, false
	}
	base, digits := uint64(10), p
	if p[0] == '0' && len(p) > 1 {
		base, digits = 8, p[1:]
		if p[1] == 'x' || p[1] == 'X' {
			base, digits = 16, p[2:]
			if digits == "" {
				return 0, false
			}
		}
	}
	var v uint64
	for i := 0; i < len(digits); i++ {
		d := digitValue(digits[i])
		if d >= base {
			return 0, false
		}
		if v = v*base + d; v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

// digitValue is c's value as a digit of any base up to 16, or 99.
func digitValue(c byte) uint64 {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0')
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10
	}
	return 99
}
