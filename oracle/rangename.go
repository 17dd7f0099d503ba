package oracle

import (
	"fmt"
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// internalRange names the range of SPEC §6 that makes a internal, for
// findings, and the form that carried it when a is an IPv6 address
// embedding an IPv4 one: a reader who sees "::7f00:1" should not have to
// work out that it is 127.0.0.1.
func internalRange(a netip.Addr) string {
	a = a.WithZone("")
	if p := spec.InternalPrefix(a); p != "" {
		return p
	}
	if form := spec.EmbeddingForm(a); form != "" {
		u := spec.Unmap(a)
		return fmt.Sprintf("the %s form of %s: %s", form, u, rangeName(u))
	}
	return rangeName(a)
}

// rangeName names the internal range a lies in, a not embedding another;
// the three addresses a reader knows by their own names are called so.
func rangeName(a netip.Addr) string {
	r, in := spec.InternalRangeOf(a)
	switch {
	case !a.IsValid():
		return "no address at all"
	case !in:
		return "not internal by SPEC §6"
	case a == modelMetadata:
		return "the cloud metadata endpoint, in " + r.Name
	case a == netip.IPv4Unspecified():
		return "unspecified, in " + r.Name
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast, in " + r.Name
	}
	return r.Name
}
