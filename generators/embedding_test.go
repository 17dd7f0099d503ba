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
	// (the last 32 bits, or RFC 6052's /48 places) sees a public one.
	for p, carriers := range publicCarriers {
		for _, c := range carriers {
			if !fetched[c] {
				t.Errorf("the interior %s of %s, which carries a public address, was not fetched in 5000 scenarios", c, p)
			}
		}
	}
}
