package campaign

import (
	"net/netip"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// hostCause names a fetch's cause for the collector: the spelling of
// host — a name, an IPv4 address dotted or in another spelling inet_aton
// reads, an IPv6 literal — and what the address it names is: its internal
// range of SPEC §6 (in the embedding form that carries it), or public.
// A name's address is its dns line's, else SPEC §6's fixed answer; a name
// whose line answers in turn is a rebinding, whatever it answers: a
// guard that checks one lookup and connects with another lets each
// through.
func hostCause(host string, dns []scenario.DNSRecord) string {
	h := spec.NormalizeHost(host)
	if a, ok := spec.ParseIPv6Literal(h); ok {
		return "IPv6 literal, " + addrCause(a)
	}
	if a, ok := spec.ParseInetAton(h); ok {
		return ipv4Spelling(h) + ", " + addrCause(a)
	}
	for _, d := range dns {
		if spec.NormalizeHost(d.Host) != h || len(d.Addrs) == 0 {
			continue
		}
		if len(d.Addrs) > 1 {
			return "name rebinding"
		}
		return "name of " + addrCause(d.Addrs[0])
	}
	return "name of " + addrCause(spec.StaticResolve(h))
}

// ipv4Spelling names how h, which inet_aton reads, spells its address.
func ipv4Spelling(h string) string {
	parts := strings.Split(h, ".")
	switch {
	case strings.Contains(strings.ToLower(h), "0x"):
		return "IPv4 in hex"
	case len(parts) == 1:
		return "IPv4 as one number"
	}
	for _, p := range parts {
		if len(p) > 1 && p[0] == '0' {
			return "IPv4 in octal"
		}
	}
	if len(parts) < 4 {
		return "IPv4 shortened"
	}
	return "IPv4 dotted"
}

// addrCause names what a is: its internal range (in the embedding form
// that carries it), or public.
func addrCause(a netip.Addr) string {
	if p := spec.InternalPrefix(a); p != "" {
		return p
	}
	name := "public"
	if r, ok := spec.InternalRangeOf(spec.Unmap(a)); ok {
		name = r.Name
	} else if !spec.Unmap(a).IsValid() {
		name = "no address"
	}
	if form := spec.EmbeddingForm(a); form != "" {
		return name + " as " + form
	}
	return name
}
