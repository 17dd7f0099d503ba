package oracle

import (
	"encoding/binary"
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

// rangeName names the internal range a lies in, a not embedding another.
func rangeName(a netip.Addr) string {
	switch {
	case !a.IsValid():
		return "no address at all"
	case a.IsUnspecified():
		return "unspecified"
	case a == modelMetadata:
		return "link-local, the cloud metadata endpoint"
	case a.Is6():
		return rangeName6(a)
	}
	v := binary.BigEndian.Uint32(a.AsSlice())
	switch {
	case v>>24 == 0:
		return "this network 0.0.0.0/8"
	case v>>24 == 127:
		return "loopback"
	case a.IsPrivate():
		return "private"
	case v&0xffc00000 == 0x64400000:
		return "shared address space 100.64.0.0/10 (carrier-grade NAT)"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case v>>8 == 0xc00000:
		return "IETF protocol assignments 192.0.0.0/24"
	case v&0xfffe0000 == 0xc6120000:
		return "benchmarking 198.18.0.0/15"
	case a.IsMulticast():
		return "multicast"
	case v == 0xffffffff:
		return "broadcast"
	case v>>28 == 0xf:
		return "reserved 240.0.0.0/4"
	}
	return "not internal by SPEC §6"
}

// rangeName6 is rangeName for an IPv6 address.
func rangeName6(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "unique local fc00::/7"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	}
	return "not internal by SPEC §6"
}
