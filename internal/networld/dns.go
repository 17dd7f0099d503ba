package networld

import (
	"net/netip"
	"slices"

	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// lookup is a name's DNS lookup under way: the family of its first
// query, and whether that query consumed the world's answer. A lookup
// asks A and AAAA at once (Go's resolver, glibc's getaddrinfo), in either
// order; the query of the other family that follows is its second, and
// ends it.
type lookup struct {
	family   netns.Family
	consumed bool
}

// Resolve answers a DNS query for name (lower case, no trailing dot) of
// family, as netns.Network.Resolve: the world's next answer for name when
// it is of family, consumed and journaled ("resolve h -> a", h spelled as
// the op spells it when it is the op's host, as a redirect's Location
// served in the op spelled it when it is that host: queried); else
// nothing, consuming
// nothing. The second query of a lookup whose first consumed the answer
// answers nothing: one lookup, one answer. A query for an IP spelling
// without a dns line of its own answers nothing, as a real DNS server
// does (a resolver that parses numbers, as getaddrinfo does, never asks).
// Outside an op it answers nothing, and a name b ignores (Ignore) never.
func (b *Binding) Resolve(name string, family netns.Family) []netip.Addr {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open || b.numeric(name) || b.ignored != nil && b.ignored(name) {
		return nil
	}
	first, pending := b.lookups[name]
	second := pending && first.family != family
	if second {
		delete(b.lookups, name)
		if first.consumed {
			return nil
		}
	}
	a, ok := b.consume(name, family)
	if !second {
		b.lookups[name] = lookup{family: family, consumed: ok}
	}
	if !ok {
		return nil
	}
	return []netip.Addr{a}
}

// numeric reports whether name is an IP spelling (SPEC §6) that no dns
// line of the world names: the world resolves such a host to itself when
// a connection is made to it, but it is no name a DNS server knows, and a
// proxy that asks DNS for "2130706433" rather than reading the number
// must not be answered 127.0.0.1.
func (b *Binding) numeric(name string) bool {
	if _, ok := spec.ParseIPLiteral(name); !ok {
		return false
	}
	return !slices.ContainsFunc(b.world.Spec().DNS, func(d scenario.DNSRecord) bool { return spec.NormalizeHost(d.Host) == name })
}

// consume resolves name in the world, journaled, when its next answer is
// of family, and reports whether it did.
func (b *Binding) consume(name string, family netns.Family) (netip.Addr, bool) {
	host := b.queried(name)
	if familyOf(b.world.PeekResolve(host)) != family {
		return netip.Addr{}, false
	}
	a := b.world.Resolve(host)
	b.op.answered(host, a)
	if host == b.op.host {
		b.op.resolvedTo(a)
	}
	return a, true
}

// familyOf is the family of the DNS record that carries a: an
// IPv4-mapped IPv6 address is an AAAA record, as it is written.
func familyOf(a netip.Addr) netns.Family {
	if a.Is4() {
		return netns.IPv4
	}
	return netns.IPv6
}
