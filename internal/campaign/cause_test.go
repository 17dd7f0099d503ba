package campaign

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestHostCause: a fetch's cause is its host's spelling and what the
// address it names is, so that one guard's misses of different ranges,
// or of one range in different spellings, are different causes.
func TestHostCause(t *testing.T) {
	dns := []scenario.DNSRecord{
		{Host: "meta.test", Addrs: []netip.Addr{netip.MustParseAddr("169.254.169.254")}},
		{Host: "rebind.test", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("127.0.0.1")}},
		{Host: "pub.test", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.8")}},
		{Host: "first.test", Addrs: []netip.Addr{netip.MustParseAddr("198.18.0.0"), netip.MustParseAddr("203.0.113.21")}},
	}
	for _, tc := range []struct{ host, want string }{
		{"127.0.0.1", "IPv4 dotted, loopback 127.0.0.0/8"},
		{"10.1.2.3", "IPv4 dotted, private 10.0.0.0/8"},
		{"0x7f.1", "IPv4 in hex"},
		{"0xa9fea9fe", "IPv4 in hex"},
		{"0177.0.0.1", "IPv4 in octal"},
		{"127.1", "IPv4 shortened"},
		{"2130706433", "IPv4 as one number"},
		{"::ffff:127.0.0.1", "IPv6 literal, an address IPv4-mapped"},
		{"[::FFFF:7F00:1]", "IPv6 literal, an address IPv4-mapped"},
		{"64:ff9b::a00:1", "IPv6 literal, an address NAT64"},
		{"64:ff9b::c000:1", "IPv6 literal, an address NAT64"},
		{"64:ff9b:1::1", "IPv6 literal, the NAT64 local-use prefix 64:ff9b:1::/48"},
		{"::1", "IPv6 literal, loopback ::1"},
		{"meta.test", "name of link-local 169.254.0.0/16"},
		{"META.TEST.", "name of link-local 169.254.0.0/16"},
		{"rebind.test", "name rebinding"},
		{"first.test", "name of benchmarking 198.18.0.0/15"},
		{"pub.test", "name of public"},
	} {
		if got := hostCause(tc.host, dns); got != tc.want {
			t.Errorf("hostCause(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

// TestCollectorSpreadsFetchCauses: the findings of one invariant at
// fetches are kept one per cause: a guard that misses NAT64 in every
// check still leaves room for the hex spelling, the shortened one and
// another range it misses later, whatever attack class drew them.
func TestCollectorSpreadsFetchCauses(t *testing.T) {
	var got []int
	k := newCollector(false, 0, func(r raw) { got = append(got, r.check) })
	fetch := func(host string) *scenario.Scenario {
		return &scenario.Scenario{Steps: []scenario.Step{{Op: core.Op{Kind: core.OpFetch, Args: []string{host, "/"}}, Class: attack.IPSpelling}}}
	}
	hosts := []string{"64:ff9b::7f00:1", "64:ff9b::7f00:2", "64:ff9b::7f00:3", "64:ff9b::7f00:4", "64:ff9b::7f00:5", "0x7f.1", "0x7f.0.0.2", "127.1", "10.0.0.1", "192.168.0.1"}
	for i, h := range hosts {
		k.offer(i, fetch(h), []oracle.Finding{{Invariant: oracle.NoInternalEgress, Step: 1}})
		k.finish(i)
	}
	k.flush()
	if diff := cmp.Diff([]int{0, 5, 7, 8}, got); diff != "" {
		t.Errorf("checks kept (-want +got):\n%s", diff)
	}
	got = nil
	k = newCollector(false, 16, func(r raw) { got = append(got, r.check) })
	for i, h := range hosts {
		k.offer(i, fetch(h), []oracle.Finding{{Invariant: oracle.NoInternalEgress, Step: 1}})
		k.finish(i)
	}
	k.flush()
	if diff := cmp.Diff([]int{0, 5, 7, 8, 9}, got); diff != "" {
		t.Errorf("checks kept with 16 per invariant (-want +got):\n%s", diff)
	}
}
