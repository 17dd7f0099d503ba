package fuzzinput

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// CheckResolve is FuzzResolve's body: core.ParseInetAton (a byte scanner
// modelled on strtoul) against slowInetAton (split on dots, then
// strconv.ParseUint), written independently from glibc's documented rules.
// It returns an error when they disagree on whether s is an address or on
// which address it is.
func CheckResolve(s string) error {
	got, gotOK := core.ParseInetAton(s)
	want, wantOK := slowInetAton(s)
	if gotOK != wantOK || got != want {
		return fmt.Errorf("ParseInetAton(%q) = %s, the independent parser says %s", s, addrOrNone(got, gotOK), addrOrNone(want, wantOK))
	}
	return nil
}

func addrOrNone(a netip.Addr, ok bool) string {
	if !ok {
		return "not an address"
	}
	return a.String()
}

// slowInetAton parses s by glibc's inet_aton(3) rules, stated as:
//
//   - ASCII white space (C's isspace) ends the address: what follows it is
//     ignored;
//   - what is left is one to four parts separated by dots;
//   - every part starts with a digit; "0x" or "0X" followed by at least one
//     more character makes it hexadecimal, any other leading "0" octal,
//     anything else decimal, and all its characters must be digits of that
//     base (so "0x" alone, "08" and "1a" are not parts);
//   - every part but the last is at most 255; the last fills the bits the
//     others leave: 32, 24, 16 or 8 of them.
func slowInetAton(s string) (netip.Addr, bool) {
	if i := strings.IndexAny(s, " \t\n\v\f\r"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var word uint64
	for i, p := range parts {
		v, ok := atonNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if v > 255 {
				return netip.Addr{}, false
			}
			word |= v << (24 - 8*i)
			continue
		}
		if v >= 1<<(32-8*i) {
			return netip.Addr{}, false
		}
		word |= v
	}
	return netip.AddrFrom4([4]byte{byte(word >> 24), byte(word >> 16), byte(word >> 8), byte(word)}), true
}

// atonNumber reads one part: decimal, octal or hexadecimal by its prefix.
func atonNumber(p string) (uint64, bool) {
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
