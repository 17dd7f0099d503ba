package sbxnet

import (
	"context"
	"net"
	"net/netip"
)

// LookupNetIP has the shape of net.Resolver.LookupNetIP: it asks the world
// once for host (journaled "resolve host -> a", SPEC §6) and answers that
// one address. network is "ip", "ip4" or "ip6". A lookup of one family
// whose next answer is of the other answers a not-found *net.DNSError and
// moves nothing, as the DNS server of SPEC §14 answers an A or an AAAA
// query: a resolver that asks "ip4" and, finding nothing, "ip6" (or the
// reverse) makes one resolution, as the model's one resolution an op. (Over a world that
// cannot tell its next answer without giving it, the answer is taken and
// journaled all the same.) A cancelled ctx answers its error and asks
// nothing.
func (n *Network) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if err := ctx.Err(); err != nil {
		return nil, &net.DNSError{Err: err.Error(), Name: host}
	}
	if network != "ip" && network != "ip4" && network != "ip6" {
		return nil, net.UnknownNetworkError(network)
	}
	a := n.resolveFamily(network, host)
	if !a.IsValid() || !familyFits(network, a) {
		return nil, &net.DNSError{Err: "no suitable address", Name: host, IsNotFound: true}
	}
	return []netip.Addr{a}, nil
}

// LookupIP has the shape of net.Resolver.LookupIP: LookupNetIP's answer as
// a net.IP, which has no zone.
func (n *Network) LookupIP(ctx context.Context, network, host string) ([]net.IP, error) {
	addrs, err := n.LookupNetIP(ctx, network, host)
	if err != nil {
		return nil, err
	}
	return []net.IP{net.IP(addrs[0].AsSlice())}, nil
}

// LookupHost has the shape of net.Resolver.LookupHost: LookupNetIP's
// answer for either family, as text.
func (n *Network) LookupHost(ctx context.Context, host string) ([]string, error) {
	addrs, err := n.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	return []string{addrs[0].String()}, nil
}

// familyFits reports whether a belongs to network: "ip4" and "tcp4" take
// IPv4, an IPv4-mapped address included, and "ip6" and "tcp6" the rest, as
// Go's own dialer and resolver sort the addresses a query answered (so a
// mapped address, an AAAA record, is found by no lookup of one family:
// the A query has none, and Go drops it from the AAAA answer); anything
// else every address.
func familyFits(network string, a netip.Addr) bool {
	switch network[len(network)-1] {
	case '4':
		return a.Unmap().Is4()
	case '6':
		return !a.Unmap().Is4()
	}
	return true
}
