package egressproxy

import (
	"net/netip"
	"testing"
)

// TestIsInternal: the examples of SPEC §6, the edges of its ranges, and
// IPv4 addresses spelled as IPv6.
func TestIsInternal(t *testing.T) {
	for s, want := range map[string]bool{
		"169.254.169.254": true, "::ffff:10.0.0.1": true, "64:ff9b::7f00:1": true, "fd00:ec2::254": true,
		"100.100.100.200": true, "203.0.113.1": false, "8.8.8.8": false, "2001:db8::1": false,
		"0.0.0.0": true, "0.255.255.255": true, "1.0.0.0": false, "100.63.255.255": false, "100.64.0.0": true,
		"100.127.255.255": true, "100.128.0.0": false, "172.15.255.255": false, "172.16.0.0": true,
		"172.31.255.255": true, "172.32.0.0": false, "192.0.0.255": true, "192.0.1.0": false,
		"198.17.255.255": false, "198.18.0.0": true, "198.19.255.255": true, "198.20.0.0": false,
		"223.255.255.255": false, "224.0.0.1": true, "255.255.255.255": true,
		"::": true, "::1": true, "fe80::1%eth0": true, "ff02::1": true, "fbff::1": false,
		"::ffff:203.0.113.1": false, "::ffff:100.64.0.1": true, "64:ff9b::cb00:7101": false,
		"64:ff9b::a9fe:a9fe": true, "64:ff9b::a00:1": true, "64:ff9b::1:0:0": false,
		"64:ff9b:1::cb00:7101": true, "64:ff9b:2::": false,
		"::7f00:1": true, "::cb00:7101": false, "::2": true, "::1:0:0": false,
		"2002:a9fe:a9fe::1": true, "2002:a00:1::": true, "2002:cb00:7101::1": false, "2003::1": false,
		"2001::1": true, "2001:1::1": false,
	} {
		if got := isInternal(netip.MustParseAddr(s)); got != want {
			t.Errorf("isInternal(%s) = %v, want %v", s, got, want)
		}
	}
	if !isInternal(netip.Addr{}) {
		t.Error("isInternal(the zero Addr) = false: an address nobody resolved must not be dialled")
	}
}
