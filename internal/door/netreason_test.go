package door

import (
	"net/netip"
	"testing"
)

// TestNetReasonAt: a name refused after its lookup is counted by where
// the answer lies: a documentation range, another special-purpose range,
// or neither; a name not looked up, and a literal, by the host alone.
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
