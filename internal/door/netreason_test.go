package door

import (
	"net/netip"
	"testing"
)

// TestNetReasonAt: a name refused after its lookup is counted by where
// the answer lies: a documentation range, another special-purpose range,
// or neither; a name not looked up by the host alone; a dotted quad by
// its own address, and else as an IPv4 literal.
func TestNetReasonAt(t *testing.T) {
	for _, tc := range []struct {
		host, addr, want string
	}{
		{"a.test", "203.0.113.9", ReasonDocumentation},
		{"a.test", "2001:db8::1", ReasonDocumentation},
		{"a.test", "fec0::1", ReasonSpecial},
		{"a.test", "2001:1::", ReasonSpecial},
		{"a.test", "::ffff:240.0.0.1", ReasonSpecial},
		{"a.test", "239.1.2.3", ReasonSpecial},
		{"a.test", "151.101.1.69", ReasonRefusedAllowed},
		{"a.test", "", ReasonRefusedAllowed},
		{"[fec0::1]", "fec0::1", ReasonIPv6Literal},
		{"100.128.0.1", "", ReasonIPv4Literal},
		{"100.128.0.1", "100.128.0.1", ReasonIPv4Literal},
		{"203.0.113.1", "", ReasonDocumentation},
		{"240.0.0.1", "", ReasonSpecial},
		{"127.1", "", ReasonIPv4Spelling},
	} {
		var addr netip.Addr
		if tc.addr != "" {
			addr = netip.MustParseAddr(tc.addr)
		}
		if got := NetReasonAt(tc.host, addr); got != tc.want {
			t.Errorf("NetReasonAt(%q, %s) = %q, want %q", tc.host, tc.addr, got, tc.want)
		}
	}
}

// TestNetReasonSeen: a guard that looked a name up more than once is
// counted by the answers it saw, the model's first: a documentation
// answer from a later lookup (dssrf looks a name up several times) is
// the reason, not the model's public one.
func TestNetReasonSeen(t *testing.T) {
	addrs := func(ss ...string) []netip.Addr {
		var out []netip.Addr
		for _, s := range ss {
			out = append(out, netip.MustParseAddr(s))
		}
		return out
	}
	public := netip.MustParseAddr("169.253.255.255")
	for _, tc := range []struct {
		host string
		all  []netip.Addr
		want string
	}{
		{"r.example", addrs("169.253.255.255", "203.0.113.21"), ReasonDocumentation},
		{"r.example", addrs("169.253.255.255", "fec0::1"), ReasonSpecial},
		{"r.example", addrs("169.253.255.255", "fec0::1", "203.0.113.21"), ReasonDocumentation},
		{"r.example", addrs("169.253.255.255", "151.101.1.69"), ReasonRefusedAllowed},
		{"r.example", nil, ReasonRefusedAllowed},
		{"[fec0::1]", addrs("fec0::1", "203.0.113.21"), ReasonIPv6Literal},
	} {
		if got := NetReasonSeen(tc.host, public, tc.all); got != tc.want {
			t.Errorf("NetReasonSeen(%q, %s, %v) = %q, want %q", tc.host, public, tc.all, got, tc.want)
		}
	}
}
