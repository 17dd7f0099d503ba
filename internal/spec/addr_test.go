package spec_test

import (
	"net/netip"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/internal/spectable"
)

// Expected addresses are worked out by hand from SPEC §6 and glibc's
// inet_aton(3): parts are decimal, octal (leading 0) or hex (leading 0x);
// with n parts the last one fills the remaining 32-8(n-1) bits; every part
// starts with a digit; trailing ASCII white space ends the address.

func TestParseInetAton(t *testing.T) {
	const bad = "" // want: not an address
	tests := []struct {
		s      string
		want   string // dotted quad, or bad
		reason string
	}{
		{"127.0.0.1", "127.0.0.1", "the plain dotted quad"},
		{"127.1", "127.0.0.1", "a.b: b fills the last 24 bits"},
		{"127.0.1", "127.0.0.1", "a.b.c: c fills the last 16 bits"},
		{"2130706433", "127.0.0.1", "one decimal part: 127<<24 + 1"},
		{"0x7f000001", "127.0.0.1", "one hex part"},
		{"0X7F000001", "127.0.0.1", "0X and upper-case hex digits"},
		{"017700000001", "127.0.0.1", "one octal part: 0x7f000001 in octal"},
		{"0x7f.1", "127.0.0.1", "hex first part, 24-bit second"},
		{"0177.0.0.1", "127.0.0.1", "octal first part: 0177 == 127"},
		{"0x7f.0.0.1", "127.0.0.1", "hex first part of a quad"},
		{"01.02.03.010", "1.2.3.8", "octal in every part: 010 == 8"},
		{"0", "0.0.0.0", "a single 0"},
		{"00", "0.0.0.0", "octal 0"},
		{"0x0", "0.0.0.0", "hex 0"},
		{"00000000000000000000001", "0.0.0.1", "leading zeros do not overflow"},
		{"169.254.169.254", "169.254.169.254", "the metadata address"},
		{"09.1.1.1", bad, "9 is no octal digit: '0' is read, then '9' is trailing junk"},
		{"08", bad, "8 is no octal digit"},
		{"256.1.1.1", bad, "a non-last part above 255"},
		{"1.2.3.4.5", bad, "five parts"},
		{"1.2.3.4.", bad, "a fifth, empty part"},
		{"1.2.3.", bad, "a trailing dot leaves an empty last part"},
		{"1..1", bad, "an empty middle part"},
		{".1.2.3", bad, "an empty first part"},
		{"", bad, "empty: no digit"},
		{"0x", bad, "'0x' without hex digits: strtoul stops at 'x', trailing junk"},
		{"0x.1", bad, "'0x' then a dot: strtoul stops at 'x'"},
		{"0x1g", bad, "'g' is no hex digit: trailing junk"},
		{"1a", bad, "'a' is no decimal digit"},
		{"a.b.c.d", bad, "parts must start with a digit"},
		{"-1", bad, "a sign is not a digit"},
		{"+1", bad, "a sign is not a digit"},
		{" 1.2.3.4", bad, "leading white space: inet_aton wants a digit first"},
		{"1. 2", bad, "white space after a dot: the part does not start with a digit"},
		{"1.2.3.4x", bad, "trailing junk that is not white space"},
		{"1.2.3.4\u00a0", bad, "NBSP is not ASCII white space"},
		{"99999999999999999999999", bad, "overflows 32 bits"},
		// glibc's quirk: ASCII white space after the last part ends the address.
		{"1.2.3.4 ", "1.2.3.4", "trailing space ends the address"},
		{"1.2.3.4 junk", "1.2.3.4", "anything after the white space is ignored"},
		{"127.1\tevil.com", "127.0.0.1", "tab ends the address"},
		{"1.2.3.4\n", "1.2.3.4", "newline is C white space"},
		{"1.2.3.4\v", "1.2.3.4", "vertical tab is C white space"},
		{"1.2.3.4\f", "1.2.3.4", "form feed is C white space"},
		{"1.2.3.4\r", "1.2.3.4", "carriage return is C white space"},
		{"1 .2", "0.0.0.1", "the space ends the address after the first part"},
		// The part limits: 32, 24, 16 and 8 bits for the last part, 8 bits
		// for every earlier one; each at the limit and one past it.
		{"4294967295", "255.255.255.255", "one part: 2^32-1"},
		{"4294967296", bad, "one part: 2^32"},
		{"0xffffffff", "255.255.255.255", "one hex part at the limit"},
		{"0x100000000", bad, "one hex part past the limit"},
		{"037777777777", "255.255.255.255", "one octal part at the limit"},
		{"040000000000", bad, "one octal part past the limit"},
		{"1.16777215", "1.255.255.255", "two parts: last at 2^24-1"},
		{"1.16777216", bad, "two parts: last at 2^24"},
		{"255.0xffffff", "255.255.255.255", "two parts, hex last at the limit"},
		{"1.2.65535", "1.2.255.255", "three parts: last at 2^16-1"},
		{"1.2.65536", bad, "three parts: last at 2^16"},
		{"1.2.3.255", "1.2.3.255", "four parts: last at 255"},
		{"1.2.3.256", bad, "four parts: last at 256"},
		{"255.1", "255.0.0.1", "a non-last part at 255"},
		{"256.1", bad, "a non-last part at 256"},
		{"0xff.1", "255.0.0.1", "a hex non-last part at the limit"},
		{"0x100.1", bad, "a hex non-last part past the limit"},
		{"0377.1", "255.0.0.1", "an octal non-last part at the limit"},
		{"0400.1", bad, "an octal non-last part past the limit"},
		{"1.2.255.4", "1.2.255.4", "a third part at 255"},
		{"1.2.256.4", bad, "a third part at 256"},
	}
	for _, tt := range tests {
		got, ok := spec.ParseInetAton(tt.s)
		switch {
		case tt.want == bad && ok:
			t.Errorf("ParseInetAton(%q) = %v, true; want not an address: %s", tt.s, got, tt.reason)
		case tt.want != bad && !ok:
			t.Errorf("ParseInetAton(%q) = not an address; want %s: %s", tt.s, tt.want, tt.reason)
		case tt.want != bad && got != netip.MustParseAddr(tt.want):
			t.Errorf("ParseInetAton(%q) = %v; want %s: %s", tt.s, got, tt.want, tt.reason)
		case ok && !got.Is4():
			t.Errorf("ParseInetAton(%q) = %v, not a plain IPv4 address: %s", tt.s, got, tt.reason)
		}
	}
}

func TestParseIPv6Literal(t *testing.T) {
	tests := []struct {
		s      string
		want   netip.Addr // the zero Addr: not a literal
		reason string
	}{
		{"::1", netip.IPv6Loopback(), "loopback without brackets"},
		{"[::1]", netip.IPv6Loopback(), "brackets are allowed"},
		{"::", netip.IPv6Unspecified(), "the unspecified address"},
		{"2001:DB8::1", netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: 1}), "upper-case hex"},
		{"fe80::1%eth0", netip.AddrFrom16([16]byte{0xfe, 0x80, 15: 1}).WithZone("eth0"), "a zone is kept"},
		{"[fe80::1%eth0]", netip.AddrFrom16([16]byte{0xfe, 0x80, 15: 1}).WithZone("eth0"), "a zone inside brackets"},
		{"::ffff:127.0.0.1", netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: 127, 15: 1}), "IPv4-mapped stays IPv6 (not unmapped here)"},
		{"[::ffff:169.254.169.254]", netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: 169, 13: 254, 14: 169, 15: 254}), "IPv4-mapped in brackets"},
		{"64:ff9b::7f00:1", netip.AddrFrom16([16]byte{0, 0x64, 0xff, 0x9b, 12: 127, 15: 1}), "NAT64 form"},
		{"fd00:ec2::254", netip.AddrFrom16([16]byte{0xfd, 0x00, 0x0e, 0xc2, 14: 0x02, 15: 0x54}), "the AWS IPv6 metadata address"},
		{"127.0.0.1", netip.Addr{}, "a dotted quad is not an IPv6 literal"},
		{"[127.0.0.1]", netip.Addr{}, "nor is a bracketed dotted quad"},
		{"", netip.Addr{}, "empty"},
		{"[]", netip.Addr{}, "empty brackets"},
		{"[::1", netip.Addr{}, "unbalanced bracket"},
		{"::1]", netip.Addr{}, "unbalanced bracket"},
		{"[[::1]]", netip.Addr{}, "brackets are stripped once"},
		{"::g", netip.Addr{}, "no hex digit"},
		{"1:2:3:4:5:6:7:8:9", netip.Addr{}, "nine groups"},
		{"fe80::1%", netip.Addr{}, "an empty zone"},
		{"localhost", netip.Addr{}, "a name"},
		{"api.internal:443", netip.Addr{}, "host:port is not a literal"},
	}
	for _, tt := range tests {
		got, ok := spec.ParseIPv6Literal(tt.s)
		if ok != tt.want.IsValid() || got != tt.want {
			t.Errorf("ParseIPv6Literal(%q) = %v, %v; want %v, %v: %s", tt.s, got, ok, tt.want, tt.want.IsValid(), tt.reason)
		}
	}
}

// TestStaticResolve reads the SPEC §6 table the oracle's model answers too.
func TestStaticResolve(t *testing.T) {
	cases, err := spectable.ReadResolve("testdata/static-resolve.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		if got := spec.StaticResolve(tt.Host); got != tt.Want {
			t.Errorf("StaticResolve(%q) = %v, want %v: %s", tt.Host, got, tt.Want, tt.Reason)
		}
	}
}

func TestUnmap(t *testing.T) {
	tests := []struct {
		in     netip.Addr
		want   netip.Addr
		reason string
	}{
		{netip.MustParseAddr("::ffff:10.0.0.1"), netip.MustParseAddr("10.0.0.1"), "IPv4-mapped"},
		{netip.MustParseAddr("::ffff:169.254.169.254"), netip.MustParseAddr("169.254.169.254"), "IPv4-mapped metadata"},
		{netip.MustParseAddr("64:ff9b::7f00:1"), netip.MustParseAddr("127.0.0.1"), "NAT64 64:ff9b::/96"},
		{netip.MustParseAddr("64:ff9b::169.254.169.254"), netip.MustParseAddr("169.254.169.254"), "NAT64, dotted spelling"},
		{netip.MustParseAddr("64:ff9b::"), netip.MustParseAddr("0.0.0.0"), "first NAT64 address"},
		{netip.MustParseAddr("64:ff9b::ffff:ffff"), netip.MustParseAddr("255.255.255.255"), "last NAT64 address"},
		{netip.MustParseAddr("64:ff9b::1:7f00:1"), netip.MustParseAddr("64:ff9b::1:7f00:1"), "just outside the NAT64 /96: unchanged"},
		{netip.MustParseAddr("::7f00:1"), netip.MustParseAddr("127.0.0.1"), "IPv4-compatible ::a.b.c.d"},
		{netip.MustParseAddr("::"), netip.MustParseAddr("::"), "the unspecified address is not IPv4-compatible"},
		{netip.MustParseAddr("::1"), netip.MustParseAddr("::1"), "the loopback address is not IPv4-compatible"},
		{netip.MustParseAddr("::1:0:0"), netip.MustParseAddr("::1:0:0"), "just outside ::/96: unchanged"},
		{netip.MustParseAddr("2002:a9fe:a9fe::"), netip.MustParseAddr("169.254.169.254"), "6to4, bits 16-47"},
		{netip.MustParseAddr("2003::a9fe:a9fe"), netip.MustParseAddr("2003::a9fe:a9fe"), "just above 6to4: unchanged"},
		{netip.MustParseAddr("2001::a9fe:a9fe"), netip.MustParseAddr("2001::a9fe:a9fe"), "Teredo is not unmapped (it is internal whatever it carries)"},
		{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.1"), "IPv4 stays"},
		{netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("2001:db8::1"), "plain IPv6 stays"},
		{netip.MustParseAddr("fe80::1%eth0"), netip.MustParseAddr("fe80::1"), "the zone is dropped"},
		{netip.Addr{}, netip.Addr{}, "the zero Addr stays zero"},
	}
	for _, tt := range tests {
		if got := spec.Unmap(tt.in); got != tt.want {
			t.Errorf("Unmap(%v) = %v, want %v: %s", tt.in, got, tt.want, tt.reason)
		}
	}
}

// TestIsInternalIPv4 checks the first and last address of every internal
// IPv4 range of SPEC §6 and a neighbour just outside where one exists, each
// also in its IPv4-mapped and NAT64 forms, which must judge the same.
func TestIsInternalIPv4(t *testing.T) {
	tests := []struct {
		addr   string
		want   bool
		reason string
	}{
		{"0.0.0.0", true, "unspecified; first of 0.0.0.0/8"},
		{"0.255.255.255", true, "last of 0.0.0.0/8"},
		{"1.0.0.0", false, "just above 0.0.0.0/8"},
		{"9.255.255.255", false, "just below 10/8"},
		{"10.0.0.0", true, "first of RFC 1918 10/8"},
		{"10.255.255.255", true, "last of 10/8"},
		{"11.0.0.0", false, "just above 10/8"},
		{"100.63.255.255", false, "just below 100.64.0.0/10"},
		{"100.64.0.0", true, "first of 100.64.0.0/10"},
		{"100.100.100.200", true, "Alibaba metadata, inside 100.64.0.0/10"},
		{"100.127.255.255", true, "last of 100.64.0.0/10"},
		{"100.128.0.0", false, "just above 100.64.0.0/10"},
		{"126.255.255.255", false, "just below loopback"},
		{"127.0.0.0", true, "first of loopback 127/8"},
		{"127.0.0.1", true, "loopback"},
		{"127.255.255.255", true, "last of loopback"},
		{"128.0.0.0", false, "just above loopback"},
		{"169.253.255.255", false, "just below link-local"},
		{"169.254.0.0", true, "first of link-local 169.254/16"},
		{"169.254.169.254", true, "the metadata address"},
		{"169.254.255.255", true, "last of link-local"},
		{"169.255.0.0", false, "just above link-local"},
		{"172.15.255.255", false, "just below 172.16/12"},
		{"172.16.0.0", true, "first of RFC 1918 172.16/12"},
		{"172.31.255.255", true, "last of 172.16/12"},
		{"172.32.0.0", false, "just above 172.16/12"},
		{"191.255.255.255", false, "just below 192.0.0.0/24"},
		{"192.0.0.0", true, "first of 192.0.0.0/24"},
		{"192.0.0.255", true, "last of 192.0.0.0/24"},
		{"192.0.1.0", false, "just above 192.0.0.0/24"},
		{"192.167.255.255", false, "just below 192.168/16"},
		{"192.168.0.0", true, "first of RFC 1918 192.168/16"},
		{"192.168.255.255", true, "last of 192.168/16"},
		{"192.169.0.0", false, "just above 192.168/16"},
		{"198.17.255.255", false, "just below 198.18.0.0/15"},
		{"198.18.0.0", true, "first of 198.18.0.0/15"},
		{"198.19.255.255", true, "last of 198.18.0.0/15"},
		{"198.20.0.0", false, "just above 198.18.0.0/15"},
		{"223.255.255.255", false, "just below multicast"},
		{"224.0.0.0", true, "first of multicast 224/4"},
		{"239.255.255.255", true, "last of multicast"},
		{"240.0.0.0", true, "first of 240.0.0.0/4 (right after multicast: no outside neighbour)"},
		{"255.255.255.254", true, "inside 240.0.0.0/4"},
		{"255.255.255.255", true, "broadcast, last of 240.0.0.0/4"},
		{"203.0.113.1", false, "the resolver's public answer, TEST-NET-3"},
		{"203.0.113.9", false, "TEST-NET-3"},
		{"8.8.8.8", false, "a public address"},
		{"192.0.2.1", false, "TEST-NET-1 is not in the SPEC's list"},
	}
	for _, tt := range tests {
		for _, form := range []string{tt.addr, "::ffff:" + tt.addr, "64:ff9b::" + tt.addr} {
			a := netip.MustParseAddr(form)
			if got := spec.IsInternal(a); got != tt.want {
				t.Errorf("IsInternal(%v) = %v, want %v: %s", a, got, tt.want, tt.reason)
			}
		}
	}
}

func TestIsInternalIPv6(t *testing.T) {
	tests := []struct {
		addr   string
		want   bool
		reason string
	}{
		{"::", true, "unspecified"},
		{"::1", true, "loopback"},
		{"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, "just below fc00::/7"},
		{"fc00::", true, "first of unique local fc00::/7"},
		{"fd00:ec2::254", true, "AWS IPv6 metadata, inside fc00::/7"},
		{"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true, "last of fc00::/7"},
		{"fe00::", false, "just above fc00::/7, below fe80::/10"},
		{"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, "just below fe80::/10"},
		{"fe80::", true, "first of link-local fe80::/10"},
		{"fe80::1%eth0", true, "link-local with a zone"},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true, "last of fe80::/10"},
		{"fec0::1", false, "just above fe80::/10 (old site-local, not listed)"},
		{"feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, "just below ff00::/8"},
		{"ff00::", true, "first of multicast ff00::/8"},
		{"ff02::1%eth0", true, "link-local multicast with a zone"},
		{"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true, "last of ff00::/8"},
		{"2001:db8::1", false, "documentation 2001:db8::/32 is not in the SPEC's list"},
		{"2606:4700:4700::1111", false, "a public address"},
		{"64:ff9b::1:7f00:1", false, "outside the NAT64 /96: judged as itself"},
		{"64:ff9b::1:0:0", false, "just outside the NAT64 /96"},
		{"64:ff9b::7f00:1", true, "NAT64 carrying 127.0.0.1"},
		{"64:ff9b::cb00:7101", false, "NAT64 carrying 203.0.113.1"},
		{"64:ff9b:1::cb00:7101", true, "the NAT64 local-use /48, whatever it carries"},
		{"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", true, "last of the NAT64 local-use /48"},
		{"64:ff9b:2::", false, "just above the NAT64 local-use /48"},
		{"::7f00:1", true, "IPv4-compatible carrying 127.0.0.1"},
		{"::cb00:7101", false, "IPv4-compatible carrying 203.0.113.1"},
		{"::2", true, "IPv4-compatible carrying 0.0.0.2, in 0.0.0.0/8"},
		{"::1:0:0", false, "just outside ::/96: judged as itself"},
		{"::ffff:cb00:7101", false, "IPv4-mapped 203.0.113.1"},
		{"::ffff:a00:1", true, "IPv4-mapped 10.0.0.1"},
		{"2002:7f00:1::", true, "6to4 carrying 127.0.0.1"},
		{"2002:a9fe:a9fe::1", true, "6to4 carrying 169.254.169.254"},
		{"2002:cb00:7101::1", false, "6to4 carrying 203.0.113.1"},
		{"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false, "just below 6to4, outside Teredo"},
		{"2003::1", false, "just above 6to4: judged as itself"},
		{"2001::1", true, "Teredo 2001::/32, whatever it carries"},
		{"2001:0:ffff:ffff:ffff:ffff:ffff:ffff", true, "last of Teredo"},
		{"2001:1::1", false, "just above Teredo"},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := spec.IsInternal(a); got != tt.want {
			t.Errorf("IsInternal(%v) = %v, want %v: %s", a, got, tt.want, tt.reason)
		}
	}
	if !spec.IsInternal(netip.Addr{}) {
		t.Errorf("IsInternal(zero Addr) = false, want true: an address nobody resolved must not be fetched from (documented)")
	}
}

// TestNormalizeHost: ASCII letters lowered and exactly one trailing dot
// removed (SPEC §6); other letters are left as they are.
func TestNormalizeHost(t *testing.T) {
	norms := []struct{ in, want string }{
		{"a.test", "a.test"}, {"a.test.", "a.test"}, {"a.test..", "a.test."}, {"A.Test..", "a.test."},
		{".", ""}, {"..", "."}, {"", ""}, {"LOCALHOST.", "localhost"}, {"\u212aelvin.test", "\u212aelvin.test"},
	}
	for _, tt := range norms {
		if got := spec.NormalizeHost(tt.in); got != tt.want {
			t.Errorf("NormalizeHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHostName: a port after a name or a bracketed IPv6 literal is
// dropped for the lookup; a bare IPv6 literal, an empty or non-numeric
// port, and anything else a URL's authority would not split stay as they
// are.
func TestHostName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"a.test:8080", "a.test"}, {"a.test", "a.test"}, {"localhost:80", "localhost"},
		{"127.1:80", "127.1"}, {"[::1]:8080", "[::1]"}, {"[fe80::1%eth0]:80", "[fe80::1%eth0]"},
		{"[::1]", "[::1]"}, {"::1", "::1"}, {"fe80::1:80", "fe80::1:80"},
		{"a.test:", "a.test:"}, {"a.test:http", "a.test:http"}, {"a.test:80:90", "a.test:80:90"},
		{":80", ":80"}, {"a.test:+80", "a.test:+80"},
	} {
		if got := spec.HostName(tt.in); got != tt.want {
			t.Errorf("HostName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSpellsHost(t *testing.T) {
	for _, tc := range []struct {
		want, host string
		same       bool
	}{
		{"api.test", "API.test.", true},
		{"::1", "[::1]", true},
		{"0177.1", "127.0.0.1", true},
		{"::ffff:203.0.113.9", "203.0.113.9", true},
		// A client writes a zone or drops it: the address is the same.
		{"::a9fe:ffff%eth0", "::a9fe:ffff", true},
		{"fe80::1", "[fe80::1%lo]", true},
		{"::a9fe:ffff%eth0", "::a9fe:fffe", false},
		{"127.0.0.1", "127.0.0.2", false},
		{"api.test", "api.test.evil", false},
	} {
		if got := spec.SpellsHost(tc.want, tc.host); got != tc.same {
			t.Errorf("SpellsHost(%q, %q) = %v, want %v", tc.want, tc.host, got, tc.same)
		}
	}
}
