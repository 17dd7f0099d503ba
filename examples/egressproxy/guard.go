package egressproxy

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// The guard: what a request may reach. Every refusal is an error whose
// text says why; the handler answers it 403.

// getTarget is the host an absolute-form GET names. The URL must be
// http, name no user (in "http://a.test@evil.test/" the host is
// evil.test, whatever a reader sees first) and no port: the proxy serves
// port 80 only, and "a.test:80" is not the granted host "a.test".
func getTarget(u *url.URL) (string, error) {
	if u.Scheme != "http" {
		return "", fmt.Errorf("scheme %q: only http is served", u.Scheme)
	}
	if u.User != nil {
		return "", errors.New("a URL with a user name in it")
	}
	host, port, hasPort := splitAuthority(u.Host)
	if hasPort {
		return "", fmt.Errorf("port %q given: only port 80 is served, named by giving no port", port)
	}
	return host, nil
}

// connectTarget is the host a CONNECT names; its port must be 80.
func connectTarget(authority string) (string, error) {
	host, port, _ := splitAuthority(authority)
	if port != "80" {
		return "", fmt.Errorf("CONNECT to port %q: only port 80 is served", port)
	}
	return host, nil
}

// splitAuthority splits "host", "host:port", "[v6]" or "[v6]:port". An
// IPv6 literal keeps its brackets, since that is how a URL names it and
// how the grant lists it.
func splitAuthority(a string) (host, port string, hasPort bool) {
	if strings.HasPrefix(a, "[") {
		if i := strings.IndexByte(a, ']'); i >= 0 && strings.HasPrefix(a[i+1:], ":") {
			return a[:i+1], a[i+2:], true
		}
		return a, "", false
	}
	if i := strings.LastIndexByte(a, ':'); i >= 0 {
		return a[:i], a[i+1:], true
	}
	return a, "", false
}

// granted reports whether host is in the grant, byte for byte, as SPEC §5
// checks it: "A.TEST", "a.test." and "evil-a.test" are not "a.test". (The
// world's resolver folds case and one trailing dot; the grant does not,
// and a proxy that did would let through hosts the grant never named.)
func (p *Proxy) granted(host string) bool {
	if p.defect == defectSuffix { // DELIBERATE DEFECT: see defect.go
		return grantedBySuffix(p.hosts, host)
	}
	return slices.Contains(p.hosts, host)
}

// decide is the guard: it says where to connect for host ("addr:80"), or
// why not. It resolves host exactly once, refuses when there is no answer
// or when any answer is internal (SPEC §6), and names the very address it
// checked, so that nothing resolves the name again between the check and
// the connection: a second answer could be another address (DNS
// rebinding).
func (p *Proxy) decide(ctx context.Context, host string) (string, error) {
	if !p.granted(host) {
		return "", fmt.Errorf("host %q is not granted", host)
	}
	if p.defect == defectName { // DELIBERATE DEFECT: see defect.go
		return checkLiteralOnly(host)
	}
	addrs, err := p.resolve(ctx, host)
	if err != nil {
		return "", fmt.Errorf("host %q has no address: %v", host, err)
	}
	if len(addrs) == 0 {
		return "", fmt.Errorf("host %q has no address", host)
	}
	for _, a := range addrs {
		if p.internal(a) {
			return "", fmt.Errorf("host %q: internal address %s", host, a)
		}
	}
	if p.defect == defectTwice { // DELIBERATE DEFECT: see defect.go
		return dialByName(host), nil
	}
	return netip.AddrPortFrom(addrs[0], 80).String(), nil
}

// resolve is host's addresses: an IP literal is itself (an IPv6 literal in
// brackets); a name is asked of the resolver, once.
func (p *Proxy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if inner, ok := strings.CutPrefix(host, "["); ok {
		a, err := netip.ParseAddr(strings.TrimSuffix(inner, "]"))
		if err != nil || !a.Is6() || !strings.HasSuffix(inner, "]") {
			return nil, errors.New("not an IPv6 address in brackets")
		}
		return []netip.Addr{a}, nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	return p.resolver.LookupNetIP(ctx, "ip", host)
}

// internal is isInternal, unless a deliberate defect blinds it.
func (p *Proxy) internal(a netip.Addr) bool {
	switch p.defect { // DELIBERATE DEFECTS: see defect.go
	case defectCGNAT:
		return isInternalButCGNAT(a)
	case defectMapped:
		return isInternalNotUnmapped(a)
	}
	return isInternal(a)
}
