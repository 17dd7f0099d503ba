package oracle

import (
	"net/netip"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// The model's static resolver, SPEC §6 read as a list: the first line that
// matches a name decides its address. (The dns lines of the scenario come
// before all of these; modelWorld.resolve asks them first.)
var (
	modelLoopback = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	modelMetadata = netip.AddrFrom4([4]byte{169, 254, 169, 254})
	modelPublic   = netip.AddrFrom4([4]byte{203, 0, 113, 1})
)

// staticAnswer resolves a name already in hostKey form, with no dns line:
//
//  1. an IPv4 literal in any spelling inet_aton accepts is itself;
//  2. an IPv6 literal, bracketed or not, is itself;
//  3. localhost and every *.localhost are 127.0.0.1;
//  4. metadata.google.internal, metadata and instance-data are 169.254.169.254;
//  5. every other name is 203.0.113.1.
func staticAnswer(name string) netip.Addr {
	if a, ok := spec.ParseInetAton(name); ok {
		return a
	}
	if a, ok := ipv6Literal(name); ok {
		return a
	}
	lastLabel := name[strings.LastIndexByte(name, '.')+1:]
	switch {
	case lastLabel == "localhost":
		return modelLoopback
	case name == "metadata.google.internal", name == "metadata", name == "instance-data":
		return modelMetadata
	}
	return modelPublic
}

// nameKey is the hostKey of the name host is resolved by (spec.HostName:
// a port after it dropped, as an HTTP client drops it before it looks the
// name up).
func nameKey(host string) string { return hostKey(spec.HostName(host)) }

// hostKey is the name the resolver and the router compare: ASCII letters
// folded to lower case (only ASCII: DNS folds nothing else), and exactly
// one trailing dot dropped, so "a.test." is "a.test" but "a.test.." is
// "a.test.", another name.
func hostKey(host string) string {
	b := []byte(strings.TrimSuffix(host, "."))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// ipv6Literal reads an IPv6 address, in square brackets or not, zone
// included. A dotted IPv4 address, even in brackets, is not one.
func ipv6Literal(s string) (netip.Addr, bool) {
	if !strings.Contains(s, ":") { // every IPv6 text form has one; a name seldom does (and a failed parse allocates)
		return netip.Addr{}, false
	}
	if inner, ok := strings.CutPrefix(s, "["); ok {
		if inner, ok = strings.CutSuffix(inner, "]"); ok {
			s = inner
		}
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return netip.Addr{}, false
	}
	return a, true
}
