package refworld

import (
	"net/netip"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestWorldClockMatchesTickClockAt: the world keeps its clock by
// saturating addition; it must answer what TickClock.At says, edges of
// int64 included.
func TestWorldClockMatchesTickClockAt(t *testing.T) {
	const maxI, minI = int64(^uint64(0) >> 1), -int64(^uint64(0)>>1) - 1
	for _, c := range []scenario.TickClock{
		{Start: 0, Step: 1}, {Start: 0, Step: 0}, {Start: 7, Step: 3}, {Start: -1, Step: 1},
		{Start: maxI - 10, Step: 4}, {Start: 0, Step: maxI}, {Start: minI, Step: maxI}, {Start: maxI, Step: -1},
		{Start: 5, Step: minI}, {Start: minI + 3, Step: -2}, {Start: maxI / 2, Step: maxI / 3}, {Start: maxI, Step: 0},
		{Start: maxI, Step: 1}, {Start: maxI - 1, Step: 1},
	} {
		w := prepare(nil, scenario.WorldSpec{Clock: c}).start()
		for k := int64(0); k < 50; k++ {
			got, gotOK := w.Now()
			want, wantOK := c.At(k)
			if got != want || gotOK != wantOK {
				t.Fatalf("clock %+v read %d: world says %d, %v; At says %d, %v", c, k, got, gotOK, want, wantOK)
			}
		}
	}
}

// TestPortedHostResolvesByName: a host that carries a port is resolved
// by its name (SPEC §6): the name's dns line answers it, and it moves on;
// the built-in names answer it too.
func TestPortedHostResolvesByName(t *testing.T) {
	w := Prepare(scenario.WorldSpec{DNS: []scenario.DNSRecord{
		{Host: "git.test", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("198.51.100.1")}},
	}}).New()
	for _, tt := range []struct{ host, want string }{
		{"git.test:8443", "10.0.0.1"}, {"git.test", "198.51.100.1"}, {"GIT.test.:80", "10.0.0.1"},
		{"localhost:8080", "127.0.0.1"}, {"[::1]:80", "::1"}, {"127.1:80", "127.0.0.1"},
		{"metadata:80", "169.254.169.254"}, {"a.test:http", "203.0.113.1"},
	} {
		if got := w.Resolve(tt.host); got != netip.MustParseAddr(tt.want) {
			t.Errorf("Resolve(%q) = %v, want %s", tt.host, got, tt.want)
		}
	}
}

// TestExactlyOneTrailingDot: SPEC §6 ignores exactly one trailing dot, the
// same way for dns lines, route hosts, the built-in names and literals:
// "a.test." is "a.test", "a.test.." is another name.
func TestExactlyOneTrailingDot(t *testing.T) {
	const (
		public   = "203.0.113.1"
		loopback = "127.0.0.1"
		metadata = "169.254.169.254"
		fromDNS  = "198.51.100.1"
		fromDNS2 = "198.51.100.2"
	)
	w := Prepare(scenario.WorldSpec{
		DNS: []scenario.DNSRecord{
			{Host: "a.test", Addrs: []netip.Addr{netip.MustParseAddr(fromDNS)}},
			{Host: "b.test..", Addrs: []netip.Addr{netip.MustParseAddr(fromDNS2)}},
		},
		Routes: []scenario.Route{
			{Host: "r.test.", Path: "/", Body: "one dot"},
			{Host: "s.test..", Path: "/", Body: "two dots"},
		},
	})
	resolves := []struct {
		host, want string
		reason     string
	}{
		{"a.test", fromDNS, "the dns line's own name"},
		{"a.test.", fromDNS, "one trailing dot is ignored"},
		{"A.TEST.", fromDNS, "and the case"},
		{"a.test..", public, "two dots: another name, which no dns line has"},
		{"b.test..", fromDNS2, "a dns line for the name 'b.test.'"},
		{"B.Test..", fromDNS2, "a dns line for the name 'b.test.', any case"},
		{"b.test.", public, "'b.test' is not the dns line's name 'b.test.'"},
		{"b.test", public, "'b.test' is not the dns line's name 'b.test.'"},
		{"localhost.", loopback, "built-in name, one dot"},
		{"localhost..", public, "two dots: 'localhost.' is no built-in name"},
		{"x.localhost.", loopback, "*.localhost, one dot"},
		{"x.localhost..", public, "two dots: the last label is empty"},
		{"metadata.google.internal.", metadata, "metadata name, one dot"},
		{"metadata.google.internal..", public, "two dots: another name"},
		{"instance-data.", metadata, "metadata name, one dot"},
		{"metadata..", public, "two dots: another name"},
		{"127.0.0.1.", loopback, "an IPv4 literal, one dot"},
		{"127.0.0.1..", public, "two dots: not an inet_aton spelling, so a name"},
		{"127.1.", loopback, "a short inet_aton spelling, one dot"},
		{"0x7f000001.", loopback, "a hex inet_aton spelling, one dot"},
		{"::1.", "::1", "an IPv6 literal, one dot"},
		{"[::1].", "::1", "a bracketed IPv6 literal, one dot"},
		{"[::1]..", public, "two dots: a name"},
		{".", public, "the root name is the empty name: every other name"},
	}
	for _, tt := range resolves {
		if got, want := w.New().Resolve(tt.host), netip.MustParseAddr(tt.want); got != want {
			t.Errorf("Resolve(%q) = %v, want %v: %s", tt.host, got, want, tt.reason)
		}
	}
	routes := []struct {
		host, want string
		ok         bool
		reason     string
	}{
		{"r.test", "one dot", true, "the route's host with its one dot ignored"},
		{"r.test.", "one dot", true, "the route's host as written"},
		{"R.Test.", "one dot", true, "any case"},
		{"r.test..", "", false, "two dots: another host"},
		{"s.test..", "two dots", true, "the route's host as written"},
		{"s.test.", "", false, "the route's host is 's.test.', this is 's.test'"},
		{"s.test...", "", false, "three dots: 's.test..', another host"},
	}
	for _, tt := range routes {
		if got, ok := w.New().Fetch(tt.host, netip.Addr{}, "/"); got != tt.want || ok != tt.ok {
			t.Errorf("Fetch(%q, /) = %q, %v; want %q, %v: %s", tt.host, got, ok, tt.want, tt.ok, tt.reason)
		}
	}
}
