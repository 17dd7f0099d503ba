package generators

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// TestEmbeddingFormsFetched: SPEC §6 judges an IPv6 address that embeds an
// IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) by the address
// it carries, and the NAT64 local-use prefix and Teredo as internal
// whatever they carry. A sandbox that forgets one form lets every internal
// range through it, so seeded scenarios must fetch, from a granted literal
// that no dns line answers, each form carrying an address of each internal
// IPv4 range and a public one, and each of the two prefixes.
func TestEmbeddingFormsFetched(t *testing.T) {
	forms := []string{"IPv4-mapped", "IPv4-compatible", "NAT64", "6to4"}
	ranges := spec.InternalRanges()
	type cell struct{ form, carried string }
	seen := map[cell]int{}
	prefixes := map[string]int{}
	fetched := map[netip.Addr]bool{}
	for i := range 5000 {
		sc := seeded(i)
		for _, st := range sc.Steps {
			op := st.Op
			if op.Kind != core.OpFetch || len(op.Args) != 2 || !slices.Contains(sc.Grant.NetHosts, op.Args[0]) || hasDNS(sc, op.Args[0]) {
				continue
			}
			a := spec.StaticResolve(op.Args[0])
			fetched[a.WithZone("")] = true
			if p := spec.InternalPrefix(a); p != "" {
				prefixes[p]++
			}
			form := spec.EmbeddingForm(a)
			if form == "" {
				continue
			}
			carried := "public"
			if r, ok := spec.InternalRangeOf(spec.Unmap(a)); ok {
				carried = r.Prefix.String()
			}
			seen[cell{form, carried}]++
		}
	}
	for _, f := range forms {
		for _, r := range ranges {
			if r.Prefix.Addr().Is4() && seen[cell{f, r.Prefix.String()}] == 0 {
				t.Errorf("no granted %s literal carrying an address of %s was fetched in 5000 scenarios", f, r.Prefix)
			}
		}
		if seen[cell{f, "public"}] == 0 {
			t.Errorf("no granted %s literal carrying a public address was fetched in 5000 scenarios", f)
		}
	}
	for _, p := range []netip.Addr{netip.MustParseAddr("64:ff9b:1::1"), netip.MustParseAddr("2001::1")} {
		if name := spec.InternalPrefix(p); prefixes[name] == 0 {
			t.Errorf("no granted literal in %s was fetched in 5000 scenarios", name)
		}
	}
	// A decoder that reads the carried address where its layout puts it
	// sees a public one: in a NAT64 local-use address, the last 32 bits
	// (the well-known /96's place) or RFC 6052's places under a /48 (bits
	// 48–63 and 72–87, the u octet between them zero); in a Teredo one,
	// the client, the last 32 bits inverted.
	public := func(b ...byte) bool {
		_, internal := spec.InternalRangeOf(netip.AddrFrom4([4]byte(b)))
		return !internal
	}
	layouts := map[netip.Prefix][]func([16]byte) bool{
		netip.MustParsePrefix("64:ff9b:1::/48"): {
			func(b [16]byte) bool { return public(b[12], b[13], b[14], b[15]) },
			func(b [16]byte) bool { return b[8] == 0 && public(b[6], b[7], b[9], b[10]) },
		},
		netip.MustParsePrefix("2001::/32"): {
			func(b [16]byte) bool { return public(^b[12], ^b[13], ^b[14], ^b[15]) },
		},
	}
	for p, reads := range layouts {
		for i, reads := range reads {
			if !slices.ContainsFunc(publicCarriers[p], func(c netip.Addr) bool { return fetched[c] && reads(c.As16()) }) {
				t.Errorf("no address of %s carrying a public address in its layout %d was fetched in 5000 scenarios", p, i)
			}
		}
	}
}

// TestSixToFourMisreadFetched: a 6to4 address carries its IPv4 address in
// bits 16–47 (SPEC §6). A guard that decodes every embedding prefix from
// the last 32 bits, where NAT64 and the compatible form put it, reads a
// 6to4 address's interface instead; seeded scenarios must fetch, from a
// granted literal, a 6to4 address that carries an internal address of each
// IPv4 range and reads public in its last 32 bits, or such a guard lets
// them all through unseen.
func TestSixToFourMisreadFetched(t *testing.T) {
	sixToFour := netip.MustParsePrefix("2002::/16")
	misread := map[string]int{}
	for i := range 5000 {
		sc := seeded(i)
		for _, st := range sc.Steps {
			op := st.Op
			if op.Kind != core.OpFetch || len(op.Args) != 2 || !slices.Contains(sc.Grant.NetHosts, op.Args[0]) || hasDNS(sc, op.Args[0]) {
				continue
			}
			a := spec.StaticResolve(op.Args[0]).WithZone("")
			r, internal := spec.InternalRangeOf(spec.Unmap(a))
			if !sixToFour.Contains(a) || !internal {
				continue
			}
			b := a.As16()
			if _, tail := spec.InternalRangeOf(netip.AddrFrom4([4]byte(b[12:]))); !tail {
				misread[r.Prefix.String()]++
			}
		}
	}
	for _, r := range spec.InternalRanges() {
		if r.Prefix.Addr().Is4() && misread[r.Prefix.String()] == 0 {
			t.Errorf("no granted 6to4 literal carrying an address of %s with a public last 32 bits was fetched in 5000 scenarios", r.Prefix)
		}
	}
}
