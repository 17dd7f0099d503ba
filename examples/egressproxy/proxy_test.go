package egressproxy

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestForwardsGrantedHost: a granted host that resolves to a public
// address is resolved once, dialled at that address (not by name) on
// port 80, and asked with its own Host; the upstream's answer comes back
// with its end-to-end headers, and the client's proxy headers stay behind.
func TestForwardsGrantedHost(t *testing.T) {
	n := &fakeNet{dns: map[string][]string{"a.test": {"203.0.113.9"}}}
	r := httptest.NewRequest(http.MethodGet, "http://a.test/x/y?q=1", nil)
	r.Header.Set("X-Client", "c1")
	r.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
	w := serve(t, proxyOver(n, "", "a.test"), r)
	n.drain()

	if w.Code != http.StatusOK || w.Body.String() != "hello from 203.0.113.9 for c1" {
		t.Errorf("answer %d %q, want 200 from the upstream", w.Code, w.Body)
	}
	if w.Header().Get("X-Upstream") != "yes" || w.Header().Get("Keep-Alive") != "" {
		t.Errorf("headers %v: want the upstream's X-Upstream and not its Keep-Alive", w.Header())
	}
	want := state{Dials: []string{"203.0.113.9:80"}, Requests: []string{"a.test /x/y?q=1"}, Lookups: map[string]int{"a.test": 1}}
	if diff := cmp.Diff(want, n.state()); diff != "" {
		t.Errorf("network (-want +got):\n%s", diff)
	}
}

// TestForwardsNoProxyHeaders: what the client said to the proxy is not
// said to the upstream.
func TestForwardsNoProxyHeaders(t *testing.T) {
	n := &fakeNet{dns: map[string][]string{"a.test": {"203.0.113.9"}}}
	var got http.Header
	n.upstream = func(c net.Conn, _ netip.Addr) {
		if req, err := n.readRequest(c); err == nil {
			got = req.Header
			fmt.Fprint(c, "HTTP/1.1 204 No Content\r\n\r\n")
		}
	}
	r := httptest.NewRequest(http.MethodGet, "http://a.test/", nil)
	r.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
	r.Header.Set("Proxy-Connection", "keep-alive")
	r.Header.Set("Connection", "X-Hop")
	r.Header.Set("X-Hop", "1")
	r.Header.Set("X-End", "2")
	if w := serve(t, proxyOver(n, "", "a.test"), r); w.Code != http.StatusNoContent {
		t.Fatalf("answer %d %q, want 204", w.Code, w.Body)
	}
	n.drain()
	for _, k := range []string{"Proxy-Authorization", "Proxy-Connection", "X-Hop", "User-Agent"} {
		if v, ok := got[k]; ok {
			t.Errorf("the upstream got %s: %q", k, v)
		}
	}
	if got.Get("X-End") != "2" {
		t.Errorf("the upstream got %v, want X-End: 2", got)
	}
}

// TestDoesNotFollowRedirects: a redirect to the metadata address goes
// back to the client as the upstream gave it (as sbxfuzz's world answers
// a redirect route: Location, the URL as body, its marker header), which
// would have to ask the proxy for it.
func TestDoesNotFollowRedirects(t *testing.T) {
	const loc = "http://169.254.169.254/latest/meta-data/"
	n := &fakeNet{dns: map[string][]string{"a.test": {"203.0.113.9"}}}
	n.upstream = func(c net.Conn, _ netip.Addr) {
		if _, err := n.readRequest(c); err == nil {
			fmt.Fprintf(c, "HTTP/1.1 302 Found\r\nLocation: %s\r\nX-Sbxfuzz-World: 1\r\nContent-Length: %d\r\n\r\n%s", loc, len(loc), loc)
		}
	}
	w := get(t, proxyOver(n, "", "a.test"), "http://a.test/")
	n.drain()
	if w.Code != http.StatusFound || len(n.state().Dials) != 1 {
		t.Errorf("answer %d, dials %v: want the 302 itself and one connection", w.Code, n.state().Dials)
	}
	if w.Header().Get("Location") != loc || w.Header().Get("X-Sbxfuzz-World") != "1" || w.Body.String() != loc {
		t.Errorf("Location %q, X-Sbxfuzz-World %q, body %q: want the upstream's, %q, 1, %q",
			w.Header().Get("Location"), w.Header().Get("X-Sbxfuzz-World"), w.Body, loc, loc)
	}
}

// TestRefusesUngranted: a host is granted byte for byte, with no port,
// user name or other scheme; the refusal comes before any lookup.
func TestRefusesUngranted(t *testing.T) {
	n := &fakeNet{dns: map[string][]string{
		"a.test": {"203.0.113.9"}, "b.test": {"203.0.113.9"}, "A.TEST": {"203.0.113.9"},
		"a.test.": {"203.0.113.9"}, "evil-a.test": {"203.0.113.9"}, "evil.test": {"203.0.113.9"},
	}}
	p := proxyOver(n, "", "a.test")
	for _, url := range []string{
		"http://b.test/", "http://A.TEST/", "http://a.test./", "http://evil-a.test/",
		"http://a.test:80/", "http://a.test:8080/", "http://user@a.test/", "http://a.test@evil.test/",
		"https://a.test/",
	} {
		w := get(t, p, url)
		if w.Code != http.StatusForbidden || !strings.HasPrefix(w.Body.String(), "egressproxy: denied: ") {
			t.Errorf("GET %s: %d %q, want 403 egressproxy: denied", url, w.Code, w.Body)
		}
	}
	if s := n.state(); len(s.Lookups)+len(s.Dials) > 0 {
		t.Errorf("refused requests looked up %v and dialled %v", s.Lookups, s.Dials)
	}
}

// TestRefusesInternal: every internal form of SPEC §6, as a literal host
// or as a name's answer, is refused and nothing is dialled; so is a name
// with no address, and one with a public and an internal answer.
func TestRefusesInternal(t *testing.T) {
	names := map[string][]string{
		"localhost":                {"127.0.0.1"},
		"ten.test":                 {"10.1.2.3"},
		"cgnat-low.test":           {"100.64.0.0"},
		"cgnat-high.test":          {"100.127.255.255"},
		"mapped.test":              {"::ffff:10.0.0.1"},
		"nat64.test":               {"64:ff9b::a00:1"},
		"6to4.test":                {"2002:a00:1::"},
		"linklocal.test":           {"fe80::1"},
		"metadata.google.internal": {"169.254.169.254"},
		"mixed.test":               {"203.0.113.9,10.0.0.1"},
		"empty.test":               {""},
		"nxdomain.test":            nil,
	}
	literals := []string{
		"127.0.0.1", "10.0.0.1", "100.64.0.0", "100.127.255.255", "169.254.169.254", "0.0.0.0",
		"[::1]", "[::]", "[::ffff:10.0.0.1]", "[::ffff:100.64.0.1]", "[64:ff9b::a00:1]", "[2002:a00:1::]",
		"[2002:0a00:0001::]", "[fe80::1]", "[fe80::1%25eth0]", "[fd00::1]", "[2001::1]", "[64:ff9b:1::cb00:7101]",
		"[::7f00:1]", "[10.0.0.1]", "[not-an-address]",
	}
	n := &fakeNet{dns: names}
	hosts := literals
	for name := range names {
		hosts = append(hosts, name)
	}
	p := proxyOver(n, "", hosts...)
	for _, h := range hosts {
		// Built, not parsed: net/url refuses "[10.0.0.1]", the guard must too.
		r := httptest.NewRequest(http.MethodGet, "http://placeholder/", nil)
		r.URL.Host, r.Host, r.RequestURI = h, h, "http://"+h+"/"
		w := serve(t, p, r)
		if w.Code != http.StatusForbidden || !strings.HasPrefix(w.Body.String(), "egressproxy: denied: ") {
			t.Errorf("GET http://%s/: %d %q, want 403 egressproxy: denied", h, w.Code, w.Body)
		}
	}
	if d := n.state().Dials; len(d) > 0 {
		t.Errorf("dialled %v", d)
	}
}

// TestForwardsJustOutside: the neighbours of the internal ranges are
// public, and each is dialled as the very address resolved.
func TestForwardsJustOutside(t *testing.T) {
	answers := map[string]string{
		"below-cgnat.test": "100.63.255.255", "above-cgnat.test": "100.128.0.0",
		"past-nat64.test": "64:ff9b::1:0:0", "past-6to4.test": "2003::1",
		"mapped-public.test": "::ffff:203.0.113.1", "nat64-public.test": "64:ff9b::cb00:7101",
	}
	for host, a := range answers {
		n := &fakeNet{dns: map[string][]string{host: {a}}}
		w := get(t, proxyOver(n, "", host), "http://"+host+"/")
		n.drain()
		want := netip.AddrPortFrom(netip.MustParseAddr(a), 80).String()
		if d := n.state().Dials; w.Code != http.StatusOK || len(d) != 1 || d[0] != want {
			t.Errorf("%s (%s): %d %q, dials %v; want 200 from %s", host, a, w.Code, w.Body, d, want)
		}
	}
}

// TestUpstreamFailures: an upstream that cannot be reached, answers no
// HTTP, sends a header past the bound, or nothing at all in time, is 502,
// and the proxy answers in each case.
func TestUpstreamFailures(t *testing.T) {
	for name, upstream := range map[string]func(n *fakeNet) func(net.Conn, netip.Addr){
		"refused": nil,
		"not HTTP": func(n *fakeNet) func(net.Conn, netip.Addr) {
			return func(c net.Conn, _ netip.Addr) { n.readRequest(c); fmt.Fprint(c, "SSH-2.0-OpenSSH\r\n\r\n") }
		},
		"huge header": func(n *fakeNet) func(net.Conn, netip.Addr) {
			return func(c net.Conn, _ netip.Addr) {
				n.readRequest(c)
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nX-Big: %s\r\n\r\n", strings.Repeat("x", 2*maxResponseHeaderBytes))
			}
		},
		"silent": func(n *fakeNet) func(net.Conn, netip.Addr) {
			return func(c net.Conn, _ netip.Addr) { n.readRequest(c); c.Read(make([]byte, 1)) }
		},
	} {
		n := &fakeNet{dns: map[string][]string{"a.test": {"203.0.113.9"}}, refuse: upstream == nil}
		if upstream != nil {
			n.upstream = upstream(n)
		}
		timeout := 10 * time.Second // far beyond what an answer takes, so that only "silent" meets it
		if name == "silent" {
			timeout = 100 * time.Millisecond
		}
		p := newProxy(Config{Hosts: []string{"a.test"}, Resolver: n, Dial: n.Dial, Timeout: timeout}, "")
		w := get(t, p, "http://a.test/")
		n.drain()
		if w.Code != http.StatusBadGateway || !strings.HasPrefix(w.Body.String(), "egressproxy: upstream: ") {
			t.Errorf("%s: %d %q, want 502 egressproxy: upstream", name, w.Code, w.Body)
		}
	}
}

// TestNotAProxyRequest: an origin-form request and a method other than
// GET and CONNECT reach nothing.
func TestNotAProxyRequest(t *testing.T) {
	n := &fakeNet{dns: map[string][]string{"a.test": {"203.0.113.9"}}}
	p := proxyOver(n, "", "a.test")
	if w := get(t, p, "/x"); w.Code != http.StatusBadRequest {
		t.Errorf("GET /x: %d, want 400", w.Code)
	}
	if w := serve(t, p, httptest.NewRequest(http.MethodPost, "http://a.test/", nil)); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", w.Code)
	}
	if s := n.state(); len(s.Lookups)+len(s.Dials) > 0 {
		t.Errorf("looked up %v and dialled %v", s.Lookups, s.Dials)
	}
}
