package egressproxy

import (
	"net/netip"
	"slices"
)

// isInternal reports whether a connection to a would stay inside the
// infrastructure (SPEC §6). An IPv4 address spelled as IPv6 (IPv4-mapped,
// IPv4-compatible, NAT64 or 6to4) is judged as the IPv4 address it
// reaches; the NAT64 local-use prefix and Teredo are internal whatever
// they carry; the zero Addr, an address nobody resolved, is internal too.
func isInternal(a netip.Addr) bool {
	a = a.WithZone("")
	if inAny(a, alwaysInternal) {
		return true
	}
	a = embeddedIPv4(a)
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() ||
		a.IsLinkLocalUnicast() || a.IsMulticast() {
		return true
	}
	return inAny(a, alsoInternal)
}

// embeddedIPv4 is the IPv4 address a carries in one of SPEC §6's embedding
// forms, or a itself. A connection to such an address really goes to the
// IPv4 address (the kernel unmaps ::ffff:a.b.c.d; a NAT64 or 6to4 gateway
// translates the others), so that is the address to judge.
func embeddedIPv4(a netip.Addr) netip.Addr {
	b := a.As16()
	switch {
	case a.Is4In6():
		return a.Unmap()
	case compatible.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback(),
		nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:]))
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])) // bits 16-47
	}
	return a
}

func inAny(a netip.Addr, ps []netip.Prefix) bool {
	return slices.ContainsFunc(ps, func(p netip.Prefix) bool { return p.Contains(a) })
}

// The IPv6 prefixes of SPEC §6: three that embed an IPv4 address (the
// fourth, IPv4-mapped, netip knows as Is4In6), and two internal whatever
// they carry.
var (
	compatible     = netip.MustParsePrefix("::/96") // ::a.b.c.d
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	alwaysInternal = []netip.Prefix{
		netip.MustParsePrefix("64:ff9b:1::/48"), // NAT64 local use
		netip.MustParsePrefix("2001::/32"),      // Teredo
	}
)

// alsoInternal are the internal IPv4 ranges of SPEC §6 that netip has no
// method for: "this network", carrier-grade NAT, IETF protocol
// assignments, benchmarking, and reserved (with broadcast).
var alsoInternal = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	cgnat,
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
}

// cgnat is carrier-grade NAT's shared space, where a cloud's internal
// services often live: the range guards most often forget.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")
