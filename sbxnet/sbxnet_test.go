package sbxnet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// testWorld routes a.test /data, and rebinds r.test: public, then internal.
func testWorld() *refworld.World {
	return refworld.New(scenario.WorldSpec{
		Routes: []scenario.Route{{Host: "a.test", Path: "/data", Body: "hello"}, {Host: "a.test", Path: "/a%2fb?c", Body: "odd"}},
		DNS:    []scenario.DNSRecord{{Host: "r.test", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("10.0.0.5")}}},
	})
}

// journal is the world's journal as SPEC §1 writes it.
func journal(w *refworld.World) []string {
	var out []string
	for _, e := range w.Journal() {
		out = append(out, e.String())
	}
	return out
}

func wantJournal(t *testing.T, w *refworld.World, want ...string) {
	t.Helper()
	if got := journal(w); !slices.Equal(got, want) {
		t.Errorf("journal:\n  got  %q\n  want %q", got, want)
	}
}

// client is an http.Client over n, as a guard would build it.
func client(n *Network) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: n.DialContext, DisableKeepAlives: true}}
}

// get fetches path from the endpoint at address with Host host, and
// returns the status and body.
func get(t *testing.T, c *http.Client, address, host, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+address, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host, req.URL.Opaque = host, path // on the request line as it is
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestLookupsJournalOneResolveEach(t *testing.T) {
	w := testWorld()
	n := New(w)
	defer n.Close()
	ctx := context.Background()
	addrs, err := n.LookupNetIP(ctx, "ip", "r.test")
	if err != nil || len(addrs) != 1 || addrs[0] != netip.MustParseAddr("203.0.113.9") {
		t.Fatalf("LookupNetIP r.test = %v, %v; want [203.0.113.9]", addrs, err)
	}
	ips, err := n.LookupIP(ctx, "ip", "r.test") // the dns line cycles
	if err != nil || len(ips) != 1 || !ips[0].Equal(net.ParseIP("10.0.0.5")) {
		t.Fatalf("LookupIP r.test = %v, %v; want [10.0.0.5]", ips, err)
	}
	hosts, err := n.LookupHost(ctx, "METADATA.google.internal.")
	if err != nil || !slices.Equal(hosts, []string{"169.254.169.254"}) {
		t.Fatalf("LookupHost metadata = %v, %v", hosts, err)
	}
	if _, err := n.LookupNetIP(ctx, "ip6", "127.1"); !isNotFound(err) {
		t.Errorf("LookupNetIP ip6 127.1: err = %v, want not found", err)
	}
	wantJournal(t, w,
		"resolve r.test -> 203.0.113.9",
		"resolve r.test -> 10.0.0.5",
		"resolve METADATA.google.internal. -> 169.254.169.254",
	)
}

// TestOneLookupOfEachFamilyTakesOneAnswer: a resolver that asks for one
// family and, finding nothing, for the other makes one resolution,
// whichever family the next answer is, in either order; a rebinding line
// moves on once a lookup; an IP literal is resolved once too.
func TestOneLookupOfEachFamilyTakesOneAnswer(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{DNS: []scenario.DNSRecord{
		{Host: "r.test", Addrs: []netip.Addr{netip.MustParseAddr("2001:db8::5"), netip.MustParseAddr("10.0.0.5")}},
	}})
	n := New(w)
	defer n.Close()
	ctx := context.Background()
	var got []string
	for _, order := range [][2]string{{"ip4", "ip6"}, {"ip6", "ip4"}} {
		for _, host := range []string{"r.test", "r.test", "2002:a9fd:ffff::1"} {
			addrs, err := n.LookupNetIP(ctx, order[0], host)
			if err != nil {
				addrs, err = n.LookupNetIP(ctx, order[1], host)
			}
			if err != nil {
				t.Fatalf("%s then %s of %s: %v", order[0], order[1], host, err)
			}
			got = append(got, addrs[0].String())
		}
	}
	want := []string{"2001:db8::5", "10.0.0.5", "2002:a9fd:ffff::1", "2001:db8::5", "10.0.0.5", "2002:a9fd:ffff::1"}
	if !slices.Equal(got, want) {
		t.Errorf("answers %q, want %q", got, want)
	}
	if len(w.Journal()) != len(want) {
		t.Errorf("journal %q: want one resolve a lookup", journal(w))
	}
}

// TestMappedAnswerIsIPv4: an IPv4-mapped answer is an AAAA record, as the
// DNS server of SPEC §14 sends it, and IPv4 to Go, which drops it from an
// AAAA answer: a lookup of one family finds it by neither (the AAAA query
// takes the answer, the A query asks nothing), a lookup of both finds it;
// a dial of the name on "tcp4" or "tcp6" finds no address, on "tcp" dials
// it; a mapped literal is dialled on "tcp4", not on "tcp6".
func TestMappedAnswerIsIPv4(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{DNS: []scenario.DNSRecord{
		{Host: "m.test", Addrs: []netip.Addr{netip.MustParseAddr("::ffff:10.0.0.5")}},
	}})
	n := New(w)
	defer n.Close()
	ctx := context.Background()
	for _, family := range []string{"ip4", "ip6"} {
		if addrs, err := n.LookupNetIP(ctx, family, "m.test"); !isNotFound(err) {
			t.Errorf("LookupNetIP %s of a mapped answer = %v, %v; want not found", family, addrs, err)
		}
	}
	if addrs, err := n.LookupNetIP(ctx, "ip", "m.test"); err != nil || len(addrs) != 1 || !addrs[0].Unmap().Is4() {
		t.Errorf("LookupNetIP ip of a mapped answer = %v, %v; want it", addrs, err)
	}
	for _, tc := range []struct {
		network, address string
		dialled          bool
	}{
		{"tcp4", "m.test:80", false}, {"tcp6", "m.test:80", false}, {"tcp", "m.test:80", true},
		{"tcp4", "[::ffff:10.0.0.5]:80", true}, {"tcp6", "[::ffff:10.0.0.5]:80", false},
	} {
		c, err := n.DialContext(ctx, tc.network, tc.address)
		if err == nil {
			c.Close()
		}
		if (err == nil) != tc.dialled {
			t.Errorf("DialContext %s %s: %v, want dialled %v", tc.network, tc.address, err, tc.dialled)
		}
	}
	// A lookup of each family, one of both, then the dials on tcp6 and tcp
	// (tcp4 asked nothing); each connection dialled ends without a request.
	wantJournal(t, w, "resolve m.test -> ::ffff:10.0.0.5", "resolve m.test -> ::ffff:10.0.0.5",
		"resolve m.test -> ::ffff:10.0.0.5", "resolve m.test -> ::ffff:10.0.0.5",
		"fetch m.test ::ffff:10.0.0.5 /", "fetch m.test ::ffff:10.0.0.5 /")
}

func isNotFound(err error) bool {
	var d *net.DNSError
	return errors.As(err, &d) && d.IsNotFound
}

func TestCancelledContextAsksNothing(t *testing.T) {
	w := testWorld()
	n := New(w)
	defer n.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.LookupNetIP(ctx, "ip", "a.test"); err == nil {
		t.Error("LookupNetIP with a cancelled context succeeded")
	}
	if _, err := n.DialContext(ctx, "tcp", "a.test:80"); err == nil {
		t.Error("DialContext with a cancelled context succeeded")
	}
	wantJournal(t, w)
}

func TestClientGetsTheRoute(t *testing.T) {
	w := testWorld()
	n := New(w)
	defer n.Close()
	c := client(n)
	if status, body := get(t, c, "203.0.113.1:80", "a.test", "/data"); status != 200 || body != "hello" {
		t.Errorf("GET a.test /data = %d %q, want 200 \"hello\"", status, body)
	}
	if status, body := get(t, c, "[2001:db8::1]:8080", "A.TEST.", "/a%2fb?c"); status != 200 || body != "odd" {
		t.Errorf("GET A.TEST. /a%%2fb?c = %d %q, want 200 \"odd\"", status, body)
	}
	// The target is read byte for byte, never decoded (SPEC §4).
	if status, _ := get(t, c, "203.0.113.1:80", "a.test", "/a/b?c"); status != http.StatusNotFound {
		t.Errorf("GET a.test /a/b?c = %d, want 404", status)
	}
	if status, _ := get(t, c, "203.0.113.1:80", "a.test", "/nope"); status != http.StatusNotFound {
		t.Errorf("GET a.test /nope = %d, want 404", status)
	}
	wantJournal(t, w, // a dial to an address asks nothing; the Host is the request's, byte for byte
		"fetch a.test 203.0.113.1 /data",
		"fetch A.TEST. 2001:db8::1 /a%2fb?c",
		"fetch a.test 203.0.113.1 /a/b?c",
		"fetch a.test 203.0.113.1 /nope",
	)
}

func TestDialByNameResolvesFirst(t *testing.T) {
	w := testWorld()
	n := New(w)
	defer n.Close()
	resp, err := client(n).Get("http://r.test/data")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET r.test /data: %d, want 404 (no route)", resp.StatusCode)
	}
	wantJournal(t, w, "resolve r.test -> 203.0.113.9", "fetch r.test 203.0.113.9 /data")
}

func TestAbsoluteTargetNamesTheHost(t *testing.T) {
	w := testWorld()
	n := New(w)
	defer n.Close()
	status, body := rawRequest(t, n, "GET http://a.test/data HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n")
	if status != "HTTP/1.1 200 OK" || body != "hello" {
		t.Errorf("absolute-form GET = %q %q, want 200 hello", status, body)
	}
	wantJournal(t, w, "fetch a.test 203.0.113.1 /data")
}

// TestRequestsAreBounded: a request past a bound is refused, and the
// connection is journaled all the same: one whose request was read as
// the fetch it asked for, one whose request could not be read as a
// connection that sent none, a fetch of "/" of the address it reached.
func TestRequestsAreBounded(t *testing.T) {
	bare := []string{"resolve 203.0.113.1 -> 203.0.113.1", "fetch 203.0.113.1 203.0.113.1 /"}
	tests := []struct {
		name, request, status string
		journal               []string
	}{
		{"header", "GET / HTTP/1.1\r\nHost: a.test\r\nX: " + strings.Repeat("x", maxHeaderBytes) + "\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large", bare},
		{"body", "POST /data HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2000000\r\n\r\n", "HTTP/1.1 413 Request Entity Too Large", []string{"fetch a.test 203.0.113.1 /data"}},
		{"chunked", "POST /data HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n" + strings.Repeat("10000\r\n"+strings.Repeat("y", 0x10000)+"\r\n", 17), "HTTP/1.1 413 Request Entity Too Large", []string{"fetch a.test 203.0.113.1 /data"}},
		{"connect", "CONNECT a.test:80 HTTP/1.1\r\nHost: a.test:80\r\n\r\n", "HTTP/1.1 405 Method Not Allowed", []string{"fetch a.test 203.0.113.1 /"}},
		{"garbage", "hello\r\n\r\n", "HTTP/1.1 400 Bad Request", bare},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := testWorld()
			n := New(w)
			defer n.Close()
			if status, _ := rawRequest(t, n, tc.request); status != tc.status {
				t.Errorf("status %q, want %q", status, tc.status)
			}
			wantJournal(t, w, tc.journal...)
		})
	}
}

// rawRequest writes request on a connection dialled to 203.0.113.1 and
// returns the response's status line and body.
func rawRequest(t *testing.T, n *Network, request string) (status, body string) {
	t.Helper()
	c, err := n.DialContext(context.Background(), "tcp", "203.0.113.1:80")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() { io.WriteString(c, request) }() // may stop half-way: the endpoint answers and closes
	resp, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatal(err)
	}
	head, body, _ := strings.Cut(string(resp), "\r\n\r\n")
	status, _, _ = strings.Cut(head, "\r\n")
	return status, body
}

func TestNoGoroutineLeftBehind(t *testing.T) {
	before := runtime.NumGoroutine()
	n := New(testWorld())
	c := client(n)
	for range 5 {
		get(t, c, "203.0.113.1:80", "a.test", "/data")
	}
	// A connection the client leaves open, half a request sent.
	conn, err := n.DialContext(context.Background(), "tcp", "203.0.113.1:80")
	if err != nil {
		t.Fatal(err)
	}
	go io.WriteString(conn, "GET /data HTTP/1.1\r\n")
	c.CloseIdleConnections()
	closed := make(chan struct{})
	go func() { n.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second): // far above what closing takes
		t.Fatal("Close did not return: a connection is still served")
	}
	if _, err := n.DialContext(context.Background(), "tcp", "203.0.113.1:80"); err == nil {
		t.Error("a dial after Close succeeded")
	}
	waitGoroutines(t, before)
}

// waitGoroutines waits, up to a bound far above what winding down takes,
// for the goroutine count to fall back to want.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// redirectWorld redirects a.test /r to http://b.test/landing, which is
// routed, and a.test /odd to a URL with bytes no header value may hold.
func redirectWorld() *refworld.World {
	return refworld.New(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "a.test", Path: "/r", Body: "http://b.test/landing", Redirect: true},
		{Host: "b.test", Path: "/landing", Body: "landed"},
		{Host: "a.test", Path: "/odd", Body: "http://b.test/a b\r\nX-Evil: 1\x00", Redirect: true},
	}})
}

// do GETs url with c and returns the last answer's status, Location,
// world header and body.
func do(t *testing.T, c *http.Client, url string) (status int, location, marker, body string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("X-Sbxfuzz-World"), string(b)
}

// TestRedirectFollowedByTheClient: a redirect route is answered 302
// Found with its URL as Location and body, and the world's header; Go's
// client with its default policy follows it to another host itself, so
// both fetches are journaled, each after its own resolve.
func TestRedirectFollowedByTheClient(t *testing.T) {
	w := redirectWorld()
	n := New(w)
	defer n.Close()
	status, location, marker, body := do(t, client(n), "http://a.test/r")
	if status != 200 || location != "" || marker != "1" || body != "landed" {
		t.Errorf("followed: %d, Location %q, marker %q, body %q; want 200 \"landed\" with the world's header", status, location, marker, body)
	}
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r",
		"resolve b.test -> 203.0.113.1", "fetch b.test 203.0.113.1 /landing")
}

// TestRedirectNotFollowed: a client that does not follow sees the 302
// itself, its Location and its body the URL, and one fetch is journaled;
// a Location with bytes no header value may hold is written escaped %XX,
// so that Go's client reads the answer, and the body holds the URL
// exactly.
func TestRedirectNotFollowed(t *testing.T) {
	w := redirectWorld()
	n := New(w)
	defer n.Close()
	c := client(n)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	status, location, marker, body := do(t, c, "http://a.test/r")
	if status != http.StatusFound || location != "http://b.test/landing" || marker != "1" || body != "http://b.test/landing" {
		t.Errorf("not followed: %d, Location %q, marker %q, body %q; want 302 with the URL as Location and body, and the world's header",
			status, location, marker, body)
	}
	status, location, _, body = do(t, c, "http://a.test/odd")
	if want := "http://b.test/a%20b%0D%0AX-Evil:%201%00"; status != http.StatusFound || location != want || body != "http://b.test/a b\r\nX-Evil: 1\x00" {
		t.Errorf("odd URL: %d, Location %q, body %q; want 302, Location %q, the URL as body", status, location, body, want)
	}
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r",
		"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /odd")
}

// plainNet is a core.Net with no Location: a world that cannot tell a
// redirect.
type plainNet struct{ w *refworld.World }

func (p plainNet) Resolve(host string) netip.Addr { return p.w.Resolve(host) }
func (p plainNet) Fetch(host string, a netip.Addr, path string) (string, bool) {
	return p.w.Fetch(host, a, path)
}

// TestNoRedirectsWithoutLocation: over a world without Location, a
// redirect route is answered 200 with its body, as any route.
func TestNoRedirectsWithoutLocation(t *testing.T) {
	w := redirectWorld()
	n := New(plainNet{w})
	defer n.Close()
	if status, location, _, body := do(t, client(n), "http://a.test/r"); status != 200 || location != "" || body != "http://b.test/landing" {
		t.Errorf("%d, Location %q, body %q; want 200 with the URL as body", status, location, body)
	}
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r")
}

// TestLiteralHostResolvedOnce: a request whose Host is an IP literal the
// op has not resolved (Go's dialer dials a literal as it is) journals the
// world's resolve of it before its fetch, once in the op, as SPEC §5
// resolves once before each fetch and the network namespace journals it;
// a literal the sandbox looked up itself is not resolved again. Over a
// world that cannot tell its op, nothing is added.
func TestLiteralHostResolvedOnce(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{{Host: "198.51.100.7", Path: "/", Body: "lit"}}})
	n := New(w)
	defer n.Close()
	c := client(n)
	op := core.Op{Kind: core.OpFetch, Args: []string{"198.51.100.7", "/"}}
	w.BeginOp(op, 0) // dialled as it is, twice
	if status, body := get(t, c, "198.51.100.7:80", "198.51.100.7", "/"); status != 200 || body != "lit" {
		t.Errorf("GET 198.51.100.7 / = %d %q, want 200 \"lit\"", status, body)
	}
	get(t, c, "198.51.100.7:80", "198.51.100.7:80", "/")
	w.BeginOp(op, 0) // looked up by the sandbox first
	if _, err := n.LookupNetIP(context.Background(), "ip", "198.51.100.7"); err != nil {
		t.Fatal(err)
	}
	get(t, c, "198.51.100.7:80", "198.51.100.7", "/")
	w.BeginOp(op, 0) // another op: resolved again
	get(t, c, "198.51.100.7:80", "198.51.100.7", "/")
	wantJournal(t, w,
		"resolve 198.51.100.7 -> 198.51.100.7", "fetch 198.51.100.7 198.51.100.7 /", "fetch 198.51.100.7 198.51.100.7 /",
		"resolve 198.51.100.7 -> 198.51.100.7", "fetch 198.51.100.7 198.51.100.7 /",
		"resolve 198.51.100.7 -> 198.51.100.7", "fetch 198.51.100.7 198.51.100.7 /",
	)

	w = refworld.New(scenario.WorldSpec{})
	n2 := New(plainNet{w})
	defer n2.Close()
	get(t, client(n2), "198.51.100.7:80", "198.51.100.7", "/")
	wantJournal(t, w, "fetch 198.51.100.7 198.51.100.7 /")
}

// TestRequestForTheOpHost: a request whose Host names the op's host as
// HTTP must write it (an IPv6 literal in brackets, a port the op's host
// holds or not) is answered from the op's host's routes and journaled as
// the op spells it, as the network namespace does; a request for another
// host is journaled without its port and brackets. A lookup of the
// bracketed spelling is another name's, so the op's literal is still
// resolved before its fetch.
func TestRequestForTheOpHost(t *testing.T) {
	for _, tc := range []struct {
		name, opHost, dial, host string
		lookup                   string // a lookup the sandbox makes first, if any
		status                   int    // 200 for a request of the op's host, routed; 404 for another
		want                     []string
	}{
		{"brackets a URL adds", "2001:db8::7", "[2001:db8::7]:80", "[2001:db8::7]", "", 200,
			[]string{"resolve 2001:db8::7 -> 2001:db8::7", "fetch 2001:db8::7 2001:db8::7 /"}},
		{"an op's host in brackets", "[2001:db8::7]", "[2001:db8::7]:80", "[2001:db8::7]", "", 200,
			[]string{"resolve [2001:db8::7] -> 2001:db8::7", "fetch [2001:db8::7] 2001:db8::7 /"}},
		{"an op's host with a port", "api.test:8080", "203.0.113.1:80", "api.test:8080", "api.test:8080", 200,
			[]string{"resolve api.test:8080 -> 203.0.113.1", "fetch api.test:8080 203.0.113.1 /"}},
		{"a port the op's host has not", "2001:db8::7", "[2001:db8::7]:80", "[2001:db8::7]:8080", "", 200,
			[]string{"resolve 2001:db8::7 -> 2001:db8::7", "fetch 2001:db8::7 2001:db8::7 /"}},
		{"looked up in brackets", "2001:db8::7", "[2001:db8::7]:80", "[2001:db8::7]", "[2001:db8::7]", 200,
			[]string{"resolve [2001:db8::7] -> 2001:db8::7", "resolve 2001:db8::7 -> 2001:db8::7", "fetch 2001:db8::7 2001:db8::7 /"}},
		{"another host", "2001:db8::7", "[2001:db8::8]:80", "[2001:db8::8]:8080", "", 404,
			[]string{"resolve 2001:db8::8 -> 2001:db8::8", "fetch 2001:db8::8 2001:db8::8 /"}},
	} {
		w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{{Host: tc.opHost, Path: "/", Body: "six"}}})
		w.BeginOp(core.Op{Kind: core.OpFetch, Args: []string{tc.opHost, "/"}}, 0)
		n := New(w)
		if tc.lookup != "" {
			if _, err := n.LookupNetIP(context.Background(), "ip", tc.lookup); err != nil {
				t.Fatal(err)
			}
		}
		status, body := get(t, client(n), tc.dial, tc.host, "/")
		n.Close()
		if status != tc.status || status == http.StatusOK && body != "six" {
			t.Errorf("%s: GET %s / = %d %q, want %d", tc.name, tc.host, status, body, tc.status)
		}
		if got := journal(w); !slices.Equal(got, tc.want) {
			t.Errorf("%s: journal\n  got  %q\n  want %q", tc.name, got, tc.want)
		}
	}
}

// TestDialControl: a guard written as a net.Dialer's Control hook is
// handed the address each connection is about to be made to, as Go's
// dialer hands it (a family of its own, an IPv4-mapped answer as its IPv4
// address), and its refusal stops the connection: a rebinding name's
// second, internal answer is checked where it is dialled, and reaches
// nothing.
func TestDialControl(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{DNS: []scenario.DNSRecord{
		{Host: "r.test", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("10.0.0.5")}},
		{Host: "m.test", Addrs: []netip.Addr{netip.MustParseAddr("::ffff:203.0.113.7")}},
		{Host: "six.test", Addrs: []netip.Addr{netip.MustParseAddr("2001:db8::7")}},
	}})
	n := New(w)
	defer n.Close()
	var seen []string
	refuse := errors.New("internal")
	control := func(network, address string, c syscall.RawConn) error {
		seen = append(seen, network+" "+address)
		if errs := []error{c.Control(func(uintptr) {}), c.Read(func(uintptr) bool { return true }), c.Write(func(uintptr) bool { return true })}; !errors.Is(errs[0], errors.ErrUnsupported) || !errors.Is(errs[1], errors.ErrUnsupported) || !errors.Is(errs[2], errors.ErrUnsupported) {
			t.Errorf("the socket's Control, Read, Write: %v, want errors.ErrUnsupported each: there is no socket", errs)
		}
		if a, err := netip.ParseAddrPort(address); err != nil || a.Addr().IsPrivate() {
			return refuse
		}
		return nil
	}
	c := &http.Client{Transport: &http.Transport{DialContext: n.DialControl(control), DisableKeepAlives: true}}
	for _, url := range []string{"http://r.test/a", "http://r.test/b", "http://m.test/c", "http://six.test/d"} {
		resp, err := c.Get(url)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if refused := errors.Is(err, refuse); refused != (url == "http://r.test/b") {
			t.Errorf("GET %s: %v; want the control's refusal only for r.test's second, internal answer", url, err)
		}
		if op := (*net.OpError)(nil); errors.As(err, &op) && op.Net != "tcp" {
			t.Errorf("GET %s: the dial's error names the network %q, want the caller's, tcp", url, op.Net)
		}
	}
	want := []string{"tcp4 203.0.113.9:80", "tcp4 10.0.0.5:80", "tcp4 203.0.113.7:80", "tcp6 [2001:db8::7]:80"}
	if !slices.Equal(seen, want) {
		t.Errorf("control was handed %q, want %q", seen, want)
	}
	wantJournal(t, w, "resolve r.test -> 203.0.113.9", "fetch r.test 203.0.113.9 /a",
		"resolve r.test -> 10.0.0.5",
		"resolve m.test -> ::ffff:203.0.113.7", "fetch m.test 203.0.113.7 /c",
		"resolve six.test -> 2001:db8::7", "fetch six.test 2001:db8::7 /d")
}
