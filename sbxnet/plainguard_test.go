package sbxnet_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
	"github.com/sbxfuzz/sbxfuzz/sbxnet"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

var errInternal = errors.New("internal")

// newPlainGuard is a sandbox whose net_fetch is written as this package's
// doc suggests, the way a Go programmer would guard egress: an
// http.Transport whose dialer parses an IP literal or looks a name up,
// refuses an internal address and dials the address checked, and a URL
// made from the host and path. It takes none of examples/httpguard's
// care to send the Host byte for byte.
func newPlainGuard(g core.Grant, w core.World) (core.Sandbox, error) {
	return newGuard(g, w, plainDial)
}

// newControlGuard is the plain guard written as most Go guards are: a
// net.Dialer's Control hook that refuses an internal address, the dial by
// name left to the dialer (sbxnet.DialControl in its place).
func newControlGuard(g core.Grant, w core.World) (core.Sandbox, error) {
	return newGuard(g, w, func(n *sbxnet.Network) dialFunc {
		return n.DialControl(func(network, address string, _ syscall.RawConn) error {
			if a, err := netip.ParseAddrPort(address); err != nil || gosandbox.IsInternal(a.Addr()) {
				return errInternal
			}
			return nil
		})
	})
}

// dialFunc is the shape of http.Transport.DialContext.
type dialFunc = func(ctx context.Context, network, address string) (net.Conn, error)

// plainDial parses an IP literal or looks a name up, refuses an internal
// address and dials the address checked.
func plainDial(n *sbxnet.Network) dialFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			addrs, err := n.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
			a = addrs[0]
		}
		if gosandbox.IsInternal(a) {
			return nil, errInternal
		}
		return n.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
	}
}

// newGuard is a sandbox whose net_fetch is an http.Transport over the
// world's network that dials with dial.
func newGuard(g core.Grant, w core.World, dial func(*sbxnet.Network) dialFunc) (core.Sandbox, error) {
	n := sbxnet.New(w)
	tr := &http.Transport{DialContext: dial(n), DisableKeepAlives: true, DisableCompression: true}
	egress := func(host, p string, room int64) (string, core.Kind) {
		h := host
		if _, _, err := net.SplitHostPort(h); err != nil && strings.Contains(h, ":") && !strings.HasPrefix(h, "[") { // an IPv6 literal, not a host:port
			h = "[" + h + "]"
		}
		req, err := http.NewRequest("GET", "http://"+h+"/", nil)
		if err != nil || !strings.HasPrefix(p, "/") {
			if addrs, err := n.LookupNetIP(context.Background(), "ip", host); err == nil && gosandbox.IsInternal(addrs[0]) {
				return "", core.EgressInternal
			}
			return "", core.NotFound
		}
		// The op's path, on the request line as it is spelled: as
		// URL.Path Go would escape it ("?" as "%3F"); as Opaque, one that
		// begins "//" would name a host.
		if req.URL.Opaque = p; strings.HasPrefix(p, "//") {
			raw, q, hasQuery := strings.Cut(p, "?")
			req.URL.Opaque, req.URL.Path, req.URL.RawPath, req.URL.RawQuery, req.URL.ForceQuery = "", raw, raw, q, hasQuery && q == ""
			if dec, err := url.PathUnescape(raw); err == nil {
				req.URL.Path = dec
			}
		}
		resp, err := tr.RoundTrip(req)
		if errors.Is(err, errInternal) {
			return "", core.EgressInternal
		}
		if err != nil {
			return "", core.NotFound
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 && resp.StatusCode != 302 {
			return "", core.NotFound
		}
		if room < 1<<62 {
			room++
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, room))
		return string(b), core.OK
	}
	return gosandbox.NewWithEgress(g, w, egress), nil
}

// TestPlainGuardJudgedFairly: a plain guard is not blamed for what the
// in-memory network, not the guard, did: a literal dialled as it is has
// its resolve journaled, and an IPv6 literal it must write in brackets is
// the op's host.
func TestPlainGuardJudgedFairly(t *testing.T) {
	sbxtest.Property(t, sbxtest.Sandbox{Name: "plainguard", Factory: newPlainGuard})
}

// TestControlGuardJudgedFairly: the same guard written as a Control hook
// is judged on the addresses its dialer really dials, and fairly.
func TestControlGuardJudgedFairly(t *testing.T) {
	sbxtest.Property(t, sbxtest.Sandbox{Name: "controlguard", Factory: newControlGuard})
}

// TestPlainGuardWithAPortedGrant: a granted host that carries a port
// ("git.example.com:8443") is resolved by its name, as an HTTP client
// looks it up, by the model and the world alike: a dns line of the name
// answers it, localhost:8080 is internal, and the client's lookup of the
// name without the port is the granted host's. The plain guard was
// convicted three ways: a verdict the model gave from the name with its
// port (public), the lookup of a name the grant does not list, and a
// fetch from an address no lookup of the whole host answered.
func TestPlainGuardWithAPortedGrant(t *testing.T) {
	sbxtest.Replay(t, sbxtest.Sandbox{Name: "plainguard", Factory: newPlainGuard, Out: t.TempDir()}, "testdata/ports/*.sbx")
}
