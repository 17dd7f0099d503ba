package egressproxy

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// The deliberate defects, for showing what sbxfuzz finds in an egress
// proxy: each is a bug real guards ship. EGRESSPROXY_DEFECT in the
// environment when New is called picks one:
//
//   - name: judges the host only when it is an IP literal, and connects
//     by name, so that a name whose DNS answers an internal address gets
//     through.
//   - twice: resolves and checks the address, then connects by name, so
//     that the connection resolves again: a name that answers a public
//     address, then an internal one (DNS rebinding), gets through.
//   - cgnat: forgets carrier-grade NAT, 100.64.0.0/10.
//   - mapped: judges an IPv6 address as IPv6 only, without unmapping the
//     IPv4 address it carries: ::ffff:10.0.0.1 and 64:ff9b::a00:1 get
//     through.
//   - suffix: matches the grant by suffix, so that evil-a.test passes for
//     a.test.
//
// Unset, the proxy is correct; any other value is an error. Delete this
// file, the defect field and the lines marked DELIBERATE DEFECT when you
// copy the package.
const (
	defectEnv    = "EGRESSPROXY_DEFECT"
	defectName   = "name"
	defectTwice  = "twice"
	defectCGNAT  = "cgnat"
	defectMapped = "mapped"
	defectSuffix = "suffix"
)

// defects are the values EGRESSPROXY_DEFECT may take, "" for none.
var defects = []string{defectName, defectTwice, defectCGNAT, defectMapped, defectSuffix}

// errUnknownDefect says which defects there are.
func errUnknownDefect(d string) error {
	return fmt.Errorf("%s=%q: no such defect (want one of %s, or unset)", defectEnv, d, strings.Join(defects, ", "))
}

// checkLiteralOnly is the name defect's guard: an IP literal is judged, a
// name is dialled by name without a look at where it leads. Do not copy it.
func checkLiteralOnly(host string) (string, error) {
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err == nil && isInternal(a) {
		return "", fmt.Errorf("host %q is an internal address", host)
	}
	return dialByName(host), nil
}

// dialByName is "host:80": a dial target the dialer resolves on its own,
// unchecked. Do not copy it.
func dialByName(host string) string {
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80")
}

// isInternalButCGNAT is the cgnat defect's check. Do not copy it.
func isInternalButCGNAT(a netip.Addr) bool {
	return isInternal(a) && !cgnat.Contains(embeddedIPv4(a.WithZone("")))
}

// isInternalNotUnmapped is the mapped defect's check: an IPv6 address is
// judged against the IPv6 ranges alone. Do not copy it.
func isInternalNotUnmapped(a netip.Addr) bool {
	if a.Is4() {
		return isInternal(a)
	}
	return inAny(a.WithZone(""), ipv6Internal)
}

// ipv6Internal are the IPv6 ranges of SPEC §6 written down by someone who
// thought IPv6 addresses only carry IPv6.
var ipv6Internal = append([]netip.Prefix{
	netip.MustParsePrefix("::/128"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"), netip.MustParsePrefix("ff00::/8"),
}, alwaysInternal...)

// grantedBySuffix is the suffix defect's grant match. Do not copy it.
func grantedBySuffix(hosts []string, host string) bool {
	for _, h := range hosts {
		if strings.HasSuffix(host, h) {
			return true
		}
	}
	return false
}
