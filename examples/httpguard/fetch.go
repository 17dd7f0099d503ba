package httpguard

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
)

// grantedHost is the context key under which a request carries its
// target to the guard: the granted host, byte for byte (a URL would
// respell it: a bracketed IPv6 literal loses its brackets, "::1" reads as
// host ":" and port "1"), since the guard must resolve exactly the name
// the grant lists.
type grantedHost struct{}

// target is what a request carries under grantedHost.
type target struct {
	host string
	// carried is false when HTTP cannot name host or the path exactly
	// (hostCarried): the guard then judges the address and connects nowhere.
	carried bool
}

var (
	// errInternal is the guard's refusal: the host resolved to an
	// internal address (SPEC §6), or to none.
	errInternal = errors.New("httpguard: internal address")
	// errNotCarried stops a request HTTP would send for another host or
	// path than the one checked.
	errNotCarried = errors.New("httpguard: host or path not expressible in HTTP")
)

// egress is net_fetch's way out (gosandbox.Egress), for a granted host: a
// GET with the real HTTP transport, whose dialer is the guard, which
// checks the address where it is known. A 200 is ok with its body; so is
// a 302 Found: a redirect is never followed (its Location is another
// fetch, of a host nobody checked), and its body, the URL, is the
// answer, as SPEC §5's one request per fetch gives it. It reads at most
// room+1 bytes of the body: enough for the sandbox to refuse a body past
// its output budget.
func (gd *guard) egress(host, p string, room int64) (string, core.Kind) {
	carried := hostCarried(host) && strings.HasPrefix(p, "/")
	ctx := context.WithValue(gd.ctx, grantedHost{}, target{host, carried})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://granted.invalid/", nil)
	if err != nil {
		return "", core.NotFound
	}
	req.Host = host // the Host header names the granted host, not the address dialled
	setTarget(req.URL, p)
	resp, err := gd.transport.RoundTrip(req)
	switch {
	case errors.Is(err, errInternal):
		return "", core.EgressInternal
	case err != nil:
		return "", core.NotFound // not carried, or cancelled by Close: nothing was fetched
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusFound {
		return "", core.NotFound
	}
	if room < math.MaxInt64 {
		room++
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, room))
	if err != nil {
		return "", core.NotFound
	}
	return string(body), core.OK
}

// guardedDial is the transport's dialer and the egress guard: it resolves
// the granted host once, refuses an internal address, and dials that very
// address. The address the transport asks for is ignored but for its
// port: the host comes with the request (grantedHost).
func (gd *guard) guardedDial(ctx context.Context, network, address string) (net.Conn, error) {
	t, ok := ctx.Value(grantedHost{}).(target)
	host := t.host
	_, port, err := net.SplitHostPort(address)
	if !ok || err != nil {
		return nil, errInternal // a dial nobody checked goes nowhere
	}
	if gd.defect == defectName { // DELIBERATE DEFECT: see defect.go
		return gd.dialByName(ctx, network, host, port)
	}
	// Resolve exactly once and connect to that very address. Resolving
	// again to connect is the DNS-rebinding hole: the second answer may be
	// internal even when the first was not.
	a, err := gd.resolveOnce(ctx, host)
	if err != nil || gosandbox.IsInternal(a) {
		return nil, errInternal
	}
	if !t.carried {
		return nil, errNotCarried
	}
	if gd.defect == defectRebind { // DELIBERATE DEFECT: see defect.go
		a, _ = gd.resolveOnce(ctx, host)
	}
	return gd.net.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
}

// resolveOnce asks the world's resolver for host's address.
func (gd *guard) resolveOnce(ctx context.Context, host string) (netip.Addr, error) {
	addrs, err := gd.net.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.Addr{}, err
	}
	return addrs[0], nil
}

// hostCarried reports whether net/http sends host as the Host header byte
// for byte. It does not when host has a non-ASCII byte (sent in punycode:
// a name becomes "xn--…"), a byte outside RFC 3986's host grammar (the
// header is sent empty), or a zone in brackets (dropped with its "%").
// Such a request would ask for another host than the one the grant lists,
// so it is not sent; nor is a path that does not start with "/", which is
// no request-target ("x") or one that names a host of its own
// ("http://evil/x"). Such ops are answered not_found: stricter than SPEC
// §5, which fetches any string.
func hostCarried(host string) bool {
	for i := 0; i < len(host); i++ {
		if c := host[i]; c >= 0x80 || !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || strings.IndexByte(hostPunct, c) >= 0) {
			return false
		}
	}
	return !(strings.HasPrefix(host, "[") && strings.Contains(host, "%"))
}

// hostPunct are the punctuation bytes net/http sends in a Host header.
const hostPunct = "!$%&'()*+,-.:;=[]_~"

// setTarget puts p on u's request line as the op spells it: as u.Path, Go
// would escape it ("?" as "%3F", "%" as "%25") and the request would ask
// for another resource than the op's. Opaque carries it as it is, but for
// a path that begins "//", which Go would send as an absolute URL of the
// host after the slashes: that one goes as its escaped form (RawPath),
// its query apart.
func setTarget(u *url.URL, p string) {
	if !strings.HasPrefix(p, "//") {
		u.Opaque = p
		return
	}
	raw, q, hasQuery := strings.Cut(p, "?")
	u.Path, u.RawPath, u.RawQuery, u.ForceQuery = raw, raw, q, hasQuery && q == ""
	if dec, err := url.PathUnescape(raw); err == nil {
		u.Path = dec
	}
}
