package outside

import (
	"net/netip"
	"testing"
)

// TestInternalAddr: SPEC §6's internal addresses, the embedding forms
// included, and their neighbours just outside.
func TestInternalAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"169.254.169.254": true, "203.0.113.1": false, "100.64.0.0": true, "100.128.0.0": false,
		"::ffff:10.0.0.1": true, "::ffff:203.0.113.1": false, "::": true, "::1": true,
		"64:ff9b::7f00:1": true, "64:ff9b::cb00:7101": false, "64:ff9b::1:0:0": false,
		"64:ff9b:1::cb00:7101": true, "64:ff9b:2::": false,
		"::7f00:1": true, "::cb00:7101": false, "::2": true, "::1:0:0": false,
		"2002:a9fe:a9fe::1": true, "2002:cb00:7101::1": false, "2003::1": false,
		"2001::1": true, "2001:1::1": false, "2001:db8::1": false, "fd00:ec2::254": true,
	} {
		if got := internalAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("internalAddr(%s) = %v, want %v", s, got, want)
		}
	}
}
