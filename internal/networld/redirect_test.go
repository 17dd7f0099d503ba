package networld

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// clientEnv makes the test binary an HTTP client run in a namespace
// (client): its value is "follow URL" or "stay URL".
const clientEnv = "NETWORLD_TEST_CLIENT"

func TestMain(m *testing.M) {
	if steps, ok := os.LookupEnv(clientEnv); ok {
		os.Exit(client(steps))
	}
	os.Exit(m.Run())
}

// client GETs a URL with Go's HTTP client, following redirects ("follow",
// the client's default policy) or not ("stay"), and prints the last
// answer as "status|Location|marker|body".
func client(steps string) int {
	mode, url, _ := strings.Cut(steps, " ")
	c := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	if mode == "stay" {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	resp, err := c.Get(url)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("%d|%s|%s|%s\n", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get(Header), body)
	return 0
}

// redirectWorld redirects a.test /r to b.test /landing, which is routed.
func redirectWorld() *refworld.World {
	return refworld.New(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "a.test", Path: "/r", Body: "http://b.test/landing", Redirect: true},
		{Host: "b.test", Path: "/landing", Body: "landed"},
	}})
}

// TestRedirectAnswered: a redirect route is answered 302 Found, its URL as
// Location and as body, with the world's header, journaled as one fetch;
// Served tells a door the op's fetch got the URL.
func TestRedirectAnswered(t *testing.T) {
	w := redirectWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test", "/r"))
	rec := serve(b, "GET", "/r", "a.test")
	b.EndOp()
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "http://b.test/landing" ||
		rec.Header().Get(Header) != "1" || rec.Body.String() != "http://b.test/landing" {
		t.Errorf("answer %d, Location %q, %s %q, body %q; want 302 with the URL as Location and body, and the world's header",
			rec.Code, rec.Header().Get("Location"), Header, rec.Header().Get(Header), rec.Body)
	}
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.9 /r")
	if got, want := b.Served(), (Served{Reached: true, Found: true, Body: "http://b.test/landing", Redirect: true}); got != want {
		t.Errorf("Served %+v, want %+v", got, want)
	}
}

// TestRedirectInNamespace: in a real namespace, Go's HTTP client that does
// not follow redirects gets the 302, its Location and the world's header,
// and one fetch is journaled; one that follows makes the next request
// itself, and its resolve and fetch of the Location's host are journaled
// after the first, while Served still holds the op's own answer, the
// redirect.
func TestRedirectInNamespace(t *testing.T) {
	if err := netns.Supported(); err != nil {
		t.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const url = "http://a.test/r"
	for _, tc := range []struct {
		mode, out string
		journal   []string
		elsewhere bool // the Location's host asked too
	}{
		{"stay", "302|http://b.test/landing|1|http://b.test/landing\n",
			[]string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r"}, false},
		{"follow", "200||1|landed\n",
			[]string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r", "resolve b.test -> 203.0.113.1", "fetch b.test 203.0.113.1 /landing"}, true},
	} {
		w := redirectWorld()
		b := New()
		b.Use(w)
		b.BeginOp(fetchOp("a.test", "/r"))
		res, _, err := netns.Run(netns.Command{
			Argv:    []string{self},
			Env:     append(os.Environ(), clientEnv+"="+tc.mode+" "+url),
			Timeout: 2 * time.Minute, // an end to a hang, far above what the client takes
		}, b.Network(80))
		b.EndOp()
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 || res.Stdout != tc.out {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and %q", tc.mode, res.ExitCode, res.Stdout, res.Stderr, tc.out)
		}
		wantJournal(t, w, tc.journal...)
		if got, want := b.Served(), (Served{Reached: true, Found: true, Body: "http://b.test/landing", Redirect: true, Elsewhere: tc.elsewhere}); got != want {
			t.Errorf("%s: Served %+v, want %+v", tc.mode, got, want)
		}
	}
}

// TestRedirectLocationReadable: a redirect whose URL holds bytes a header
// value cannot (CR LF, which would write a header of the URL's own; NUL,
// which Go's HTTP reader refuses; spaces at its ends, which a reader
// drops) is read by Go's HTTP transport over the wire: Location carries
// those bytes escaped %XX, the body carries the URL exactly, and no
// header of the URL's own is written.
func TestRedirectLocationReadable(t *testing.T) {
	const url = " http://x.test/a b\r\nX-Evil: 1\x00\x7f\t"
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{{Host: "a.test", Path: "/r", Body: url, Redirect: true}}})
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test", "/r"))
	srv := httptest.NewServer(b)
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/r", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "a.test"
	// The transport alone reads the answer: an http.Client would parse
	// the Location too, which need not be a URL.
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("the answer does not read: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	const want = "%20http://x.test/a%20b%0D%0AX-Evil:%201%00%7F%09"
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want || string(body) != url || resp.Header.Get("X-Evil") != "" {
		t.Errorf("answer %d, Location %q, X-Evil %q, body %q; want 302, Location %q, no X-Evil, the URL as body",
			resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("X-Evil"), body, want)
	}
}

// TestRedirectToALiteral: a follower's request for a redirect's Location
// at an IP literal asks no DNS server; the world's resolve of the literal
// is journaled before its fetch, once in the op, as for the op's own
// literal host, so the hop is judged on its address, not as a fetch
// without a resolve. A name is not resolved for the program.
func TestRedirectToALiteral(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "a.test", Path: "/r", Body: "http://93.184.215.14/x", Redirect: true}}})
	b := bound(w, netip.MustParseAddr("93.184.215.14"))
	b.BeginOp(fetchOp("a.test", "/r"))
	b.localAddr = func(*http.Request) netip.AddrPort { return netip.MustParseAddrPort("203.0.113.1:80") }
	serve(b, "GET", "/r", "a.test")
	b.localAddr = func(*http.Request) netip.AddrPort { return netip.MustParseAddrPort("93.184.215.14:80") }
	serve(b, "GET", "/x", "93.184.215.14")
	serve(b, "GET", "/y", "93.184.215.14")
	b.localAddr = func(*http.Request) netip.AddrPort { return netip.MustParseAddrPort("203.0.113.1:80") }
	serve(b, "GET", "/z", "c.test")
	b.EndOp()
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r",
		"resolve 93.184.215.14 -> 93.184.215.14", "fetch 93.184.215.14 93.184.215.14 /x", "fetch 93.184.215.14 93.184.215.14 /y",
		"fetch c.test 203.0.113.1 /z")
}

// TestBareConnectionOfARedirect: a connection without a request (a TLS
// hello) to where another host's answer in the op pointed, a redirect's
// Location over https, is that host's fetch, not the op's, once however
// many there are; one to the op's own answer, which the op's request
// fetched already, adds nothing.
func TestBareConnectionOfARedirect(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{
		Routes: []scenario.Route{{Host: "a.test", Path: "/r", Body: "https://b.test/x", Redirect: true}},
		DNS:    []scenario.DNSRecord{{Host: "b.test", Addrs: []netip.Addr{netip.MustParseAddr("151.101.1.69")}}},
	})
	b := bound(w, spec203)
	var recs []netns.Record
	b.Attach(func() []netns.Record { r := recs; recs = nil; return r })
	b.BeginOp(fetchOp("a.test", "/r"))
	lookupBoth(b, "a.test", false)
	serve(b, "GET", "/r", "a.test")
	lookupBoth(b, "b.test", false)
	recs = append(recs,
		netns.Record{Conn: 1, Local: netip.MustParseAddrPort("203.0.113.1:80"), Method: "GET", Host: "a.test", Target: "/r"},
		netns.Record{Conn: 2, Local: netip.MustParseAddrPort("151.101.1.69:443")},
		netns.Record{Conn: 4, Local: netip.MustParseAddrPort("151.101.1.69:443")},
		netns.Record{Conn: 3, Local: netip.MustParseAddrPort("203.0.113.1:443")})
	b.EndOp()
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r",
		"resolve b.test -> 151.101.1.69", "fetch b.test 151.101.1.69 /")
}

// TestRedirectToAMappedLiteral: a Location at an IPv4-mapped literal is
// reached at the IPv4 address it carries; its fetch is journaled with
// the address its resolve answered, as the op's own is, so the hop is
// not "another address than the one checked".
func TestRedirectToAMappedLiteral(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "a.test", Path: "/r", Body: "http://[::ffff:93.184.215.14]/x", Redirect: true}}})
	b := bound(w, spec203)
	b.BeginOp(fetchOp("a.test", "/r"))
	serve(b, "GET", "/r", "a.test")
	b.localAddr = func(*http.Request) netip.AddrPort { return netip.MustParseAddrPort("93.184.215.14:80") }
	serve(b, "GET", "/x", "[::ffff:93.184.215.14]")
	b.EndOp()
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r",
		"resolve ::ffff:93.184.215.14 -> ::ffff:93.184.215.14", "fetch ::ffff:93.184.215.14 ::ffff:93.184.215.14 /x")
}
