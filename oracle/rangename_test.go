package oracle_test

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// TestInternalRangeNames: a finding names the range of SPEC §6 an address
// is internal by and, for an IPv6 form embedding an IPv4 address, the
// address carried and the form.
func TestInternalRangeNames(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1":          "loopback 127.0.0.0/8",
		"0.0.0.2":            "this network 0.0.0.0/8",
		"0.0.0.0":            "unspecified, in this network 0.0.0.0/8",
		"10.1.2.3":           "private 10.0.0.0/8",
		"172.31.0.1":         "private 172.16.0.0/12",
		"192.168.0.1":        "private 192.168.0.0/16",
		"100.100.100.200":    "shared address space 100.64.0.0/10 (carrier-grade NAT)",
		"169.254.169.254":    "the cloud metadata endpoint, in link-local 169.254.0.0/16",
		"169.254.0.1":        "link-local 169.254.0.0/16",
		"192.0.0.8":          "IETF protocol assignments 192.0.0.0/24",
		"198.19.255.255":     "benchmarking 198.18.0.0/15",
		"224.0.0.1":          "multicast 224.0.0.0/4",
		"240.0.0.1":          "reserved 240.0.0.0/4",
		"255.255.255.255":    "broadcast, in reserved 240.0.0.0/4",
		"::1":                "loopback ::1",
		"::":                 "unspecified ::",
		"fc00::1":            "unique local fc00::/7",
		"fe80::1%eth0":       "link-local fe80::/10",
		"ff02::1":            "multicast ff00::/8",
		"::ffff:ffff":        "the IPv4-compatible form of 255.255.255.255: broadcast, in reserved 240.0.0.0/4",
		"::ffff:10.0.0.5":    "the IPv4-mapped form of 10.0.0.5: private 10.0.0.0/8",
		"64:ff9b::a9fe:a9fe": "the NAT64 form of 169.254.169.254: the cloud metadata endpoint, in link-local 169.254.0.0/16",
		"2002:7f00:1::":      "the 6to4 form of 127.0.0.1: loopback 127.0.0.0/8",
		"64:ff9b:1::8.8.8.8": "the NAT64 local-use prefix 64:ff9b:1::/48",
		"2001::1":            "Teredo 2001::/32",
	} {
		if got := oracle.InternalRange(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}

// TestEveryInternalAddressNamed: every address SPEC §6 calls internal is
// named by a range, none as "not internal" (drawn from a fixed seed over
// the IPv4 space, and from the embedding forms carrying it).
func TestEveryInternalAddressNamed(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		v4 := netip.AddrFrom4([4]byte{byte(src.Uint32()), byte(src.Uint32()), byte(src.Uint32()), byte(src.Uint32())})
		b := v4.As4()
		for _, a := range []netip.Addr{v4, netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: b[0], 13: b[1], 14: b[2], 15: b[3]}),
			netip.AddrFrom16([16]byte{0: 0x20, 1: 0x02, 2: b[0], 3: b[1], 4: b[2], 5: b[3]})} {
			name := oracle.InternalRange(a)
			if spec.IsInternal(a) == strings.Contains(name, "not internal") {
				t.Fatalf("%s: internal %v, named %q", a, spec.IsInternal(a), name)
			}
		}
	}
}
