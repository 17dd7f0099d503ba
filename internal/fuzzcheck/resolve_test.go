package fuzzcheck

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// TestResolveSpecExamples: the inet_aton spellings of SPEC §6 and glibc's
// edges, answered by hand, through spec.ParseInetAton; CheckResolve finds
// nothing wrong with each.
func TestResolveSpecExamples(t *testing.T) {
	const bad = ""
	tests := []struct{ s, want, reason string }{
		{"127.0.0.1", "127.0.0.1", "a dotted quad"},
		{"127.1", "127.0.0.1", "a.b: b fills 24 bits"},
		{"127.0.1", "127.0.0.1", "a.b.c: c fills 16 bits"},
		{"2130706433", "127.0.0.1", "one decimal part"},
		{"0x7f000001", "127.0.0.1", "one hex part"},
		{"0X7F.1", "127.0.0.1", "upper-case hex prefix and digits"},
		{"0177.0.0.1", "127.0.0.1", "an octal part"},
		{"0x7f.0.0.1", "127.0.0.1", "a hex part"},
		{"00000000000000000000001", "0.0.0.1", "leading zeros: octal, no overflow"},
		{"09.1.1.1", bad, "9 is no octal digit"},
		{"08", bad, "8 is no octal digit"},
		{"1.2.3.4.5", bad, "five parts"},
		{"256.1.1.1", bad, "a non-last part above 255"},
		{"0x", bad, "0x without a hex digit"},
		{"0x.1", bad, "0x then a dot"},
		{"1..1", bad, "an empty part"},
		{"1.2.3.", bad, "an empty last part"},
		{"", bad, "nothing"},
		{"+1", bad, "a sign is not a digit"},
		{" 1.2.3.4", bad, "leading white space"},
		{"1.2.3.4 junk", "1.2.3.4", "white space ends the address"},
		{"127.1\tevil.com", "127.0.0.1", "a tab ends the address"},
		{"1 .2", "0.0.0.1", "the space ends it after the first part"},
		{"1. 2", bad, "white space right after a dot"},
		{"1.2.3.4\u00a0", bad, "NBSP is not ASCII white space"},
		{"4294967295", "255.255.255.255", "one part at 2^32-1"},
		{"4294967296", bad, "one part at 2^32"},
		{"1.16777215", "1.255.255.255", "two parts, the last at 2^24-1"},
		{"1.16777216", bad, "two parts, the last at 2^24"},
		{"1.2.65536", bad, "three parts, the last at 2^16"},
		{"1.2.3.256", bad, "four parts, the last at 256"},
		{"0x100.1", bad, "a hex non-last part past 255"},
		{"99999999999999999999999", bad, "past 64 bits"},
	}
	for _, tt := range tests {
		got, ok := spec.ParseInetAton(tt.s)
		switch {
		case tt.want == bad && ok:
			t.Errorf("ParseInetAton(%q) = %v, want not an address: %s", tt.s, got, tt.reason)
		case tt.want != bad && (!ok || got.String() != tt.want):
			t.Errorf("ParseInetAton(%q) = %s, want %s: %s", tt.s, addrOrNone(got, ok), tt.want, tt.reason)
		}
		if err := CheckResolve(tt.s); err != nil {
			t.Errorf("%v: %s", err, tt.reason)
		}
	}
}

// TestCheckResolveFindsAWrongParser: CheckResolve's comparisons fail on
// parsers that get inet_aton wrong: one that refuses the dotted quad it
// should read, one that reads it as another address, one that stops at
// nothing but the end (white space and more is no address to it).
func TestCheckResolveFindsAWrongParser(t *testing.T) {
	for _, tc := range []struct {
		name  string
		s     string
		parse func(string) (netip.Addr, bool)
	}{
		{"refuses dotted quads", "10.0.0.1", func(string) (netip.Addr, bool) { return netip.Addr{}, false }},
		{"reads every address as another", "127.1", func(s string) (netip.Addr, bool) {
			a, ok := spec.ParseInetAton(s)
			return a.Next(), ok
		}},
		{"reads no white space", "127.1", func(s string) (netip.Addr, bool) {
			if strings.ContainsAny(s, " \t") {
				return netip.Addr{}, false
			}
			return spec.ParseInetAton(s)
		}},
	} {
		if err := checkResolve(tc.s, tc.parse); err == nil {
			t.Errorf("a parser that %s passed on %q", tc.name, tc.s)
		}
	}
}
