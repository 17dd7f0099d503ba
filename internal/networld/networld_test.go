package networld

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

var (
	public  = netip.MustParseAddr("203.0.113.9")
	private = netip.MustParseAddr("10.0.0.5")
	six     = netip.MustParseAddr("2001:db8::7")
	mapped  = netip.MustParseAddr("::ffff:10.0.0.5")
	spec203 = netip.MustParseAddr("203.0.113.1") // SPEC §6's answer for a name without a dns line
)

// testWorld routes a.test /data, redirects a.test /go to b.test /data,
// rebinds r.test over both families (public IPv4, IPv6, private IPv4)
// and answers m.test IPv4-mapped.
func testWorld() *refworld.World {
	return refworld.New(scenario.WorldSpec{
		Routes: []scenario.Route{{Host: "a.test", Path: "/data", Body: "hello"}, {Host: "127.1", Path: "/", Body: "local"},
			{Host: "a.test", Path: "/go", Body: "http://b.test/data", Redirect: true}},
		DNS: []scenario.DNSRecord{
			{Host: "r.test", Addrs: []netip.Addr{public, six, private}},
			{Host: "m.test", Addrs: []netip.Addr{mapped}},
		},
	})
}

// bound is a binding serving w, with requests aimed at aimed.
func bound(w *refworld.World, aimed netip.Addr) *Binding {
	b := New()
	b.localAddr = func(*http.Request) netip.AddrPort { return netip.AddrPortFrom(aimed, 80) }
	b.Use(w)
	return b
}

func fetchOp(host, path string) core.Op {
	return core.Op{Kind: core.OpFetch, Args: []string{host, path}}
}

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

// lookupBoth is one lookup of name as a resolver makes it: an A and an
// AAAA query, AAAA first when sixFirst; it returns every address answered.
func lookupBoth(b *Binding, name string, sixFirst bool) []netip.Addr {
	order := []netns.Family{netns.IPv4, netns.IPv6}
	if sixFirst {
		order = []netns.Family{netns.IPv6, netns.IPv4}
	}
	var got []netip.Addr
	for _, f := range order {
		got = append(got, b.Resolve(name, f)...)
	}
	return got
}

// TestLookupConsumesOneAnswer: a rebinding line whose answers alternate
// families is consumed one answer per lookup, whichever query of the
// lookup comes first, and cycles; each answer is journaled once. A
// binding that answered every query whose family fits would give two
// addresses to the first lookup.
func TestLookupConsumesOneAnswer(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("r.test", "/"))
	var got [][]netip.Addr
	for i, sixFirst := range []bool{false, true, false, true} {
		got = append(got, lookupBoth(b, "r.test", sixFirst))
		if i == 1 {
			b.EndOp()
			b.BeginOp(fetchOp("r.test", "/"))
		}
	}
	want := [][]netip.Addr{{public}, {six}, {private}, {public}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("lookups answered %v, want %v", got, want)
	}
	wantJournal(t, w, "resolve r.test -> 203.0.113.9", "resolve r.test -> 2001:db8::7",
		"resolve r.test -> 10.0.0.5", "resolve r.test -> 203.0.113.9")
}

// TestQueryOfTheOtherFamily: a query whose family is not that of the
// world's next answer answers nothing and consumes nothing, so a lookup
// of one family alone never moves the line on; an IPv4-mapped answer is
// an AAAA record.
func TestQueryOfTheOtherFamily(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("m.test", "/"))
	for range 2 {
		if got := b.Resolve("m.test", netns.IPv4); got != nil {
			t.Fatalf("A query of an IPv4-mapped answer: %v, want nothing", got)
		}
	}
	wantJournal(t, w)
	if got := b.Resolve("m.test", netns.IPv6); !slices.Equal(got, []netip.Addr{mapped}) {
		t.Errorf("AAAA query: %v, want %v", got, mapped)
	}
	wantJournal(t, w, "resolve m.test -> ::ffff:10.0.0.5")
}

// TestNumericNameNotAnswered: a DNS query for an IP spelling is answered
// nothing and journals nothing, as a real DNS server answers a proxy that
// asks for "2130706433" instead of reading it (nginx); one with a dns
// line of its own is a name, answered from the line.
func TestNumericNameNotAnswered(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{DNS: []scenario.DNSRecord{{Host: "0x7F.1.", Addrs: []netip.Addr{public}}}})
	b := bound(w, public)
	for _, name := range []string{"2130706433", "127.0.0.1", "0177.0.0.1", "014420000000"} {
		b.BeginOp(fetchOp(name, "/"))
		if got := lookupBoth(b, name, false); got != nil {
			t.Errorf("lookup of %s: %v, want nothing", name, got)
		}
		b.EndOp()
	}
	wantJournal(t, w)
	b.BeginOp(fetchOp("0x7F.1.", "/"))
	if got := lookupBoth(b, "0x7f.1", false); !slices.Equal(got, []netip.Addr{public}) {
		t.Errorf("lookup of a spelling with a dns line: %v, want %v", got, public)
	}
	wantJournal(t, w, "resolve 0x7F.1. -> 203.0.113.9")
}

// serve sends req to b and returns the recorded answer.
func serve(b *Binding, method, target, host string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	req.Host = host
	rec := httptest.NewRecorder()
	b.ServeHTTP(rec, req)
	return rec
}

// TestHandlerAnswersRoutes: a request is answered from the world's route
// for its Host (port dropped) and path, journaled as a fetch from the
// address aimed at after the op's resolve; no route is 404; both carry
// the world's header; a CONNECT is 405, journaled as a fetch of "/" of the
// host it names (the connection reached the address); a request with no
// Host is the host whose resolve in the op answered its address, else
// the address itself.
func TestHandlerAnswersRoutes(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test", "/data"))
	lookupBoth(b, "a.test", false)
	ok := serve(b, "GET", "/data", "a.test:80")
	missing := serve(b, "GET", "/nothing", "a.test")
	connect := serve(b, "CONNECT", "a.test:80", "a.test:80")
	noHost := serve(b, "GET", "/data", "")
	for _, c := range []struct {
		name   string
		rec    *httptest.ResponseRecorder
		status int
		body   string
	}{{"route", ok, 200, "hello"}, {"no route", missing, 404, ""}, {"CONNECT", connect, 405, ""}, {"no Host", noHost, 404, ""}} {
		if c.rec.Code != c.status || c.rec.Body.String() != c.body || c.rec.Header().Get(Header) != "1" {
			t.Errorf("%s: %d %q, %s %q; want %d %q with %s: 1", c.name, c.rec.Code, c.rec.Body, Header, c.rec.Header().Get(Header), c.status, c.body, Header)
		}
		if c.rec.Header().Get("Connection") != "close" {
			t.Errorf("%s: Connection %q, want close: a connection kept would carry a later op's request", c.name, c.rec.Header().Get("Connection"))
		}
	}
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.9 /data", "fetch a.test 203.0.113.9 /nothing",
		"fetch a.test 203.0.113.9 /", "resolve 203.0.113.9 -> 203.0.113.9", "fetch 203.0.113.9 203.0.113.9 /data")
}

// TestConnectAndNoHost: a CONNECT that reaches the world is journaled and
// answers no fetch (the op's verdict is not its 405); a request with no
// Host to an address no resolve of the op answered is the address's own,
// not the op's host.
func TestConnectAndNoHost(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test", "/data"))
	serve(b, "CONNECT", "a.test:80", "a.test:80")
	b.EndOp()
	if got := b.Served(); got != (Served{}) {
		t.Errorf("served after a CONNECT alone: %+v, want nothing", got)
	}
	b.BeginOp(fetchOp("a.test", "/data"))
	serve(b, "GET", "/data", "")
	b.EndOp()
	j := strings.Join(journal(w), "; ")
	if !strings.Contains(j, "fetch a.test 203.0.113.9 /") || !strings.Contains(j, "fetch 203.0.113.9 203.0.113.9 /data") {
		t.Errorf("journal %q: want the CONNECT's fetch of a.test, and the Host-less request as its address's", j)
	}
}

// TestOpSpelling: the resolve and the fetch of the op's host are
// journaled as the op spells it, whatever case the DNS query and the
// Host header carry, so the grant judges the name the op asked.
func TestOpSpelling(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("A.Test.", "/data"))
	lookupBoth(b, "a.test", false)
	if rec := serve(b, "GET", "/data", "a.test"); rec.Code != 200 {
		t.Errorf("status %d, want 200", rec.Code)
	}
	wantJournal(t, w, "resolve A.Test. -> 203.0.113.1", "fetch A.Test. 203.0.113.9 /data")
}

// TestFetchWithoutLookup: a request for the op's host that no DNS query
// preceded (an IP literal, dialled as it is) journals the world's
// resolve of the host first, once per op; a request for another host
// journals its fetch alone.
func TestFetchWithoutLookup(t *testing.T) {
	w := testWorld()
	b := bound(w, netip.MustParseAddr("127.0.0.1"))
	b.BeginOp(fetchOp("127.1", "/"))
	serve(b, "GET", "/", "127.1")
	serve(b, "GET", "/", "127.1")
	serve(b, "GET", "/x", "b.test")
	wantJournal(t, w, "resolve 127.1 -> 127.0.0.1", "fetch 127.1 127.0.0.1 /", "fetch 127.1 127.0.0.1 /", "fetch b.test 127.0.0.1 /x")
}

// TestLiteralRespelled: a request for an IP literal the op spells
// another way (a proxy writing "::ffff:203.0.113.9" as "203.0.113.9", or
// "0xcb.0.113.9" in dotted decimal) is the op's host: the literal's
// resolve is journaled before its fetch, both as the op spells it.
func TestLiteralRespelled(t *testing.T) {
	for _, c := range []struct{ op, sent string }{
		{"::ffff:203.0.113.9", "203.0.113.9"},
		{"[::ffff:203.0.113.9]", "203.0.113.9"},
		{"0xcb.0.113.9", "203.0.113.9"},
		{"203.0.113.9", "[::ffff:203.0.113.9]"},
	} {
		w := testWorld()
		b := bound(w, public)
		b.BeginOp(fetchOp(c.op, "/"))
		serve(b, "GET", "/", c.sent)
		a := spec.StaticResolve(c.op).String() // a mapped connection is journaled with the address resolved
		want := []string{"resolve " + c.op + " -> " + a, "fetch " + c.op + " " + a + " /"}
		if got := journal(w); !slices.Equal(got, want) {
			t.Errorf("op %s, Host %s: journal %q, want %q", c.op, c.sent, got, want)
		}
	}
}

// TestUnspecifiedConnection: a connection to 0.0.0.0, which Linux
// delivers to 127.0.0.1, is journaled with the address the op resolved,
// mapped or not; one to 127.0.0.1 for an op that resolved elsewhere is
// journaled as it is.
func TestUnspecifiedConnection(t *testing.T) {
	for _, c := range []struct{ op, local, want string }{
		{"0.0.0.0", "127.0.0.1", "0.0.0.0"},
		{"::ffff:0.0.0.0", "127.0.0.1", "::ffff:0.0.0.0"},
		{"::", "::1", "::"},
		{"203.0.113.9", "127.0.0.1", "127.0.0.1"},
		{"0.0.0.0", "::1", "::1"},
		{"0.0.0.0", "127.0.0.5", "127.0.0.5"}, // not where 0.0.0.0 arrives: a connection of the proxy's own choosing
	} {
		w := testWorld()
		b := bound(w, netip.MustParseAddr(c.local))
		b.BeginOp(fetchOp(c.op, "/"))
		serve(b, "GET", "/", c.op)
		j := journal(w)
		if want := "fetch " + c.op + " " + c.want + " /"; len(j) != 2 || j[1] != want {
			t.Errorf("op %s, connection to %s: journal %q, want its fetch %q", c.op, c.local, j, want)
		}
	}
}

// TestBareConnection: a connection recorded during the op that sent no
// request is journaled at EndOp as a fetch of the op's host and path from
// the address it was aimed at, after the op's resolve; one that sent a
// request, and one recorded before the op, are not.
func TestBareConnection(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	recs := []netns.Record{{Conn: 1, Local: netip.MustParseAddrPort("198.51.100.1:80")}}
	take := func() []netns.Record { r := recs; recs = nil; return r }
	b.Attach(take)
	if recs != nil {
		t.Fatal("Attach did not take the records made before it")
	}
	b.BeginOp(fetchOp("a.test", "/data"))
	lookupBoth(b, "a.test", false)
	recs = append(recs,
		netns.Record{Conn: 2, Local: netip.MustParseAddrPort("203.0.113.1:80")},
		netns.Record{Conn: 2, Local: netip.MustParseAddrPort("203.0.113.1:80"), Method: "GET", Host: "a.test", Target: "/data"},
		netns.Record{Conn: 3, Local: netip.MustParseAddrPort("10.0.0.9:80")})
	if l := b.EndOp(); l.Count != 1 || l.Last != spec203 || l.Internal {
		t.Errorf("EndOp = %+v; want %v once, public: the op's host was resolved once", l, spec203)
	}
	wantJournal(t, w, "resolve a.test -> 203.0.113.1", "fetch a.test 10.0.0.9 /data")
	if !b.Served().Bare {
		t.Error("Served: a connection without a request was journaled, but Bare is false")
	}
	b.BeginOp(fetchOp("a.test", "/data"))
	b.EndOp()
	if b.Served().Bare {
		t.Error("Served: an op that connected nowhere is Bare")
	}
}

// TestBareConnectionsOncePerAddress: connections without a request (a
// browser's preconnects and spare sockets, as many as it likes on each
// run) are journaled once for each address the op's host was not fetched
// from by a request: the journal, and so a replay's, is the same whatever
// their number.
func TestBareConnectionsOncePerAddress(t *testing.T) {
	public, other := netip.MustParseAddr("151.101.1.69"), netip.MustParseAddrPort("10.0.0.9:80")
	spares := func(n int, at ...netip.AddrPort) []netns.Record {
		var recs []netns.Record
		for i := range n {
			for j, a := range at {
				recs = append(recs, netns.Record{Conn: 10 + 10*j + i, Local: a})
			}
		}
		return recs
	}
	at203 := netip.AddrPortFrom(spec203, 80)
	for _, tc := range []struct {
		name       string
		aimed      netip.Addr // where the op's request went
		host, path string     // its Host and path
		recs       []netns.Record
		want       []string
		bare       bool
	}{
		{"one spare each way", spec203, "a.test", "/data", spares(1, at203, other),
			[]string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /data", "fetch a.test 10.0.0.9 /data"}, true},
		{"three spare each way", spec203, "a.test", "/data", spares(3, at203, other),
			[]string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /data", "fetch a.test 10.0.0.9 /data"}, true},
		{"a spare beside the request", spec203, "a.test", "/data", spares(1, at203),
			[]string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /data"}, false},
		// A request for another host (a literal a Location named): a spare
		// connection to that address is neither the op's nor a second
		// fetch of that host.
		{"a spare beside another host's request", public, "151.101.1.69", "/x", spares(1, netip.AddrPortFrom(public, 443)),
			[]string{"resolve a.test -> 203.0.113.1", "resolve 151.101.1.69 -> 151.101.1.69", "fetch 151.101.1.69 151.101.1.69 /x"}, false},
	} {
		w := testWorld()
		b := bound(w, tc.aimed)
		var recs []netns.Record
		b.Attach(func() []netns.Record { r := recs; recs = nil; return r })
		b.BeginOp(fetchOp("a.test", "/data"))
		lookupBoth(b, "a.test", false)
		serve(b, "GET", tc.path, tc.host)
		recs = tc.recs
		b.EndOp()
		if got := journal(w); !slices.Equal(got, tc.want) {
			t.Errorf("%s: journal\n  got  %q\n  want %q", tc.name, got, tc.want)
		}
		if b.Served().Bare != tc.bare {
			t.Errorf("%s: Bare %v, want %v (a replay marks a Bare op as one that sent no request)", tc.name, b.Served().Bare, tc.bare)
		}
	}
}

// TestClosedBetweenOps: after EndOp, and before any world is bound, a
// query answers nothing and a request 503, and nothing is journaled; the
// requests are counted for the door, the least of them kept.
func TestClosedBetweenOps(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test", "/data"))
	b.EndOp()
	if got := lookupBoth(b, "a.test", false); got != nil {
		t.Errorf("lookup between ops: %v, want nothing", got)
	}
	if rec := serve(b, "GET", "/data", "a.test"); rec.Code != 503 || rec.Header().Get(Header) != "1" {
		t.Errorf("request between ops: %d, want 503 with the world's header", rec.Code)
	}
	serve(b, "GET", "/admin", "b.test:80")
	wantJournal(t, w)
	if n, first := b.TakeLate(); n != 2 || first != "a.test 203.0.113.9 /data" {
		t.Errorf("requests between ops: %d, the least %q; want 2 and a.test's", n, first)
	}
	if n, _ := b.TakeLate(); n != 0 {
		t.Errorf("taken twice: %d more", n)
	}
	if got := lookupBoth(New(), "a.test", false); got != nil {
		t.Errorf("lookup with no world: %v, want nothing", got)
	}
}

// TestLockedWorld: a resolve of the op's host through World counts as
// the op's, so a request that follows journals no second resolve.
func TestLockedWorld(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("r.test", "/data"))
	if a := b.World().Resolve("r.test"); a != public {
		t.Fatalf("World().Resolve = %v, want %v", a, public)
	}
	serve(b, "GET", "/data", "r.test")
	wantJournal(t, w, "resolve r.test -> 203.0.113.9", "fetch r.test 203.0.113.9 /data")
	if l := b.EndOp(); l.Count != 1 || l.Last != public {
		t.Errorf("EndOp = %+v; want %v once: the op's host was resolved through World", l, public)
	}
}

// TestEndOpCountsLookups: a sandbox that looks the op's host up more
// than once (a guard that checks every answer) gets the answers in turn;
// EndOp tells the last, how many lookups there were, and that one
// answered an internal address.
func TestEndOpCountsLookups(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("r.test", "/data"))
	for range 3 {
		lookupBoth(b, "r.test", false)
	}
	if l := b.EndOp(); l.Count != 3 || l.Last != private || !l.Internal {
		t.Errorf("EndOp = %+v; want %v last of 3, one internal", l, private)
	}
}

// TestMappedConnection: a connection to the IPv4-mapped address the op's
// resolve answered arrives as the IPv4 address it carries; its fetch is
// journaled with the address resolved, which it cannot be told from.
func TestMappedConnection(t *testing.T) {
	w := testWorld()
	b := bound(w, netip.MustParseAddr("10.0.0.5"))
	b.BeginOp(fetchOp("m.test", "/"))
	lookupBoth(b, "m.test", true)
	serve(b, "GET", "/", "m.test")
	wantJournal(t, w, "resolve m.test -> ::ffff:10.0.0.5", "fetch m.test ::ffff:10.0.0.5 /")
}

// TestRoutePathIsAsSent: a request's path is looked up byte for byte as
// its request line spells it, in origin and absolute form: an encoded
// slash is not a slash (SPEC §4), and the query is part of the path.
func TestRoutePathIsAsSent(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "a.test", Path: "/a%2fb", Body: "encoded"},
		{Host: "a.test", Path: "/a/b", Body: "decoded"},
		{Host: "a.test", Path: "/q?x=%41", Body: "query"},
	}})
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test", "/a%2fb"))
	for _, c := range []struct{ target, body string }{
		{"/a%2fb", "encoded"},
		{"http://a.test/a%2fb", "encoded"},
		{"/a/b", "decoded"},
		{"/q?x=%41", "query"},
		{"http://a.test:80/q?x=%41", "query"},
	} {
		if rec := serve(b, "GET", c.target, "a.test"); rec.Code != 200 || rec.Body.String() != c.body {
			t.Errorf("GET %s: %d %q; want 200 %q", c.target, rec.Code, rec.Body, c.body)
		}
	}
}

// TestServed: the binding tells a door what the world answered the op's
// host — its route's body, a 404, or nothing when no request for it came
// (another host's does not count, but is told: Elsewhere) — after the op
// has ended, and forgets it when the next op begins.
func TestServed(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	type request struct{ path, host string }
	for _, tc := range []struct {
		name     string
		op       core.Op
		requests []request
		want     Served
	}{
		{"a route", fetchOp("A.test", "/data"), []request{{"/data", "a.test"}}, Served{Reached: true, Found: true, Body: "hello"}},
		{"no route", fetchOp("a.test", "/nothing"), []request{{"/nothing", "a.test"}}, Served{Reached: true}},
		{"the op's path, then another", fetchOp("a.test", "/data"), []request{{"/data", "a.test"}, {"/robots.txt", "a.test"}}, Served{Reached: true, Found: true, Body: "hello"}},
		{"another path only", fetchOp("a.test", "/data"), []request{{"/data/", "a.test"}}, Served{Reached: true}},
		{"robots.txt only", fetchOp("a.test", "/data"), []request{{"/robots.txt", "a.test"}}, Served{Reached: true, SideOnly: true}},
		{"robots.txt, then the page", fetchOp("a.test", "/data"), []request{{"/robots.txt", "a.test"}, {"/data", "a.test"}}, Served{Reached: true, Found: true, Body: "hello"}},
		{"the page, then robots.txt", fetchOp("a.test", "/data"), []request{{"/data/", "a.test"}, {"/robots.txt", "a.test"}}, Served{Reached: true}},
		{"another page, then the icon", fetchOp("a.test", "/nothing"), []request{{"/data", "a.test"}, {"/favicon.ico", "a.test"}}, Served{Reached: true, Found: true, Body: "hello"}},
		{"robots.txt as the op's path", fetchOp("a.test", "/robots.txt"), []request{{"/robots.txt", "a.test"}}, Served{Reached: true}},
		{"only another host asked", fetchOp("a.test", "/data"), []request{{"/data", "b.test"}}, Served{Elsewhere: true}},
		{"a redirect, followed to another host", fetchOp("a.test", "/go"), []request{{"/go", "a.test"}, {"/data", "b.test"}},
			Served{Reached: true, Found: true, Body: "http://b.test/data", Redirect: true, Elsewhere: true}},
		{"a redirect, followed on the same host", fetchOp("a.test", "/go"), []request{{"/go", "a.test"}, {"/data", "a.test"}},
			Served{Reached: true, Found: true, Body: "http://b.test/data", Redirect: true}},
	} {
		b.BeginOp(tc.op)
		for _, r := range tc.requests {
			serve(b, "GET", r.path, r.host)
		}
		b.EndOp()
		if got := b.Served(); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestPagesServedAsHTML: a route whose body begins with "<html" is served
// as HTML, which a browser renders (and so follows its refresh, frames
// and scripts); any other body, and a 404, as bytes.
func TestPagesServedAsHTML(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "a.test", Path: "/page", Body: `<HTML><iframe src="http://127.0.0.1/"></iframe></HTML>`},
		{Host: "a.test", Path: "/data", Body: "<p>hello</p>"},
	}})
	b := bound(w, public)
	for path, want := range map[string]string{"/page": "text/html; charset=utf-8", "/data": "application/octet-stream", "/none": "application/octet-stream"} {
		b.BeginOp(fetchOp("a.test", path))
		rec := serve(b, "GET", path, "a.test")
		b.EndOp()
		if got := rec.Header().Get("Content-Type"); got != want {
			t.Errorf("%s: served as %q, want %q", path, got, want)
		}
	}
}

// TestRepeatsOfAnEarlierOp: a request for an earlier op's host, to the
// address that op fetched it from, that nothing in the op under way
// asked for (no lookup of it, no redirect to it) — a browser's late load
// of the page before, its icon — is answered 503 and counted as a request
// outside an op, not journaled: on a rerun it lands in another op, or in
// none. So is a connection that sent no request, to such an address. One
// the op looked the host up for again, or was redirected to, is the
// op's.
func TestRepeatsOfAnEarlierOp(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{
		Routes: []scenario.Route{{Host: "a.test", Path: "/data", Body: "hello"}, {Host: "c.test", Path: "/go", Body: "http://a.test/data", Redirect: true},
			{Host: "d.test", Path: "/go", Body: "https://203.0.113.9/", Redirect: true}},
		DNS: []scenario.DNSRecord{{Host: "a.test", Addrs: []netip.Addr{public}}, {Host: "c.test", Addrs: []netip.Addr{spec203}}},
	})
	b := bound(w, public)
	aim := func(a netip.Addr) {
		b.localAddr = func(*http.Request) netip.AddrPort { return netip.AddrPortFrom(a, 80) }
	}
	var recs []netns.Record
	b.Attach(func() []netns.Record { r := recs; recs = nil; return r })

	b.BeginOp(fetchOp("a.test", "/data"))
	lookupBoth(b, "a.test", false)
	aim(public)
	serve(b, "GET", "/data", "a.test")
	b.EndOp()

	b.BeginOp(fetchOp("c.test", "/x"))
	lookupBoth(b, "c.test", false)
	aim(netip.MustParseAddr("::ffff:203.0.113.9")) // the same address, as a socket of the other family aims at it
	if rec := serve(b, "GET", "/favicon.ico", "a.test"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("the page before's icon, asked in the next op: %d, want 503", rec.Code)
	}
	aim(spec203)
	serve(b, "GET", "/x", "c.test")
	recs = append(recs, netns.Record{Conn: 7, Local: netip.AddrPortFrom(public, 80)})
	b.EndOp()
	wantJournal(t, w, "resolve a.test -> 203.0.113.9", "fetch a.test 203.0.113.9 /data",
		"resolve c.test -> 203.0.113.1", "fetch c.test 203.0.113.1 /x")
	if n, least := b.TakeLate(); n != 1 || least != "a.test 203.0.113.9 /favicon.ico" {
		t.Errorf("requests outside an op: %d, the least %q; want the icon's", n, least)
	}

	// Asked for by the op: a redirect to it, or a lookup of it.
	b.BeginOp(fetchOp("c.test", "/go"))
	lookupBoth(b, "c.test", false)
	serve(b, "GET", "/go", "c.test")
	aim(public)
	serve(b, "GET", "/data", "a.test")
	b.EndOp()
	b.BeginOp(fetchOp("c.test", "/x"))
	lookupBoth(b, "a.test", false)
	serve(b, "GET", "/data", "a.test")
	b.EndOp()
	got := journal(w)
	if n := strings.Count(strings.Join(got, "\n"), "fetch a.test 203.0.113.9 /data"); n != 3 {
		t.Errorf("journal %q: a.test fetched %d times, want 3: after a redirect to it, and a lookup of it, it is the op's", got, n)
	}

	// The op's own path, or one no earlier op asked, sent to an earlier
	// op's host: a request of the op's, wherever it went.
	for _, path := range []string{"/y", "/y", "/admin"} { // the second /y is a path an earlier op fetched a.test at
		b.BeginOp(fetchOp("c.test", "/y"))
		lookupBoth(b, "c.test", false)
		aim(public)
		serve(b, "GET", path, "a.test")
		b.EndOp()
		if j := journal(w); j[len(j)-1] != "fetch a.test 203.0.113.9 "+path {
			t.Errorf("a.test %s in an op of c.test /y: journal ends %q, want the fetch", path, j[len(j)-1])
		}
	}
	// A connection without a request to where the op's own host was
	// fetched from before, with no lookup in the op: an answer it kept,
	// the op's.
	b.BeginOp(fetchOp("a.test", "/data"))
	recs = append(recs, netns.Record{Conn: 8, Local: netip.AddrPortFrom(public, 80)})
	b.EndOp()
	if j := journal(w); j[len(j)-1] != "fetch a.test 203.0.113.9 /data" {
		t.Errorf("a connection of the op's host to its kept address: journal ends %q, want the fetch", j[len(j)-1])
	}
	// A connection without a request after the op was redirected to a
	// host fetched from that address, or to a literal of it (a host no
	// earlier op was fetched as): following the redirect, the op's.
	for i, redirected := range []string{"c.test", "d.test"} {
		b.BeginOp(fetchOp(redirected, "/go"))
		lookupBoth(b, redirected, false)
		aim(spec203)
		serve(b, "GET", "/go", redirected)
		recs = append(recs, netns.Record{Conn: 9 + i, Local: netip.AddrPortFrom(public, 443)})
		b.EndOp()
		if j := journal(w); !strings.HasPrefix(j[len(j)-1], "fetch ") || !strings.Contains(j[len(j)-1], " 203.0.113.9 ") {
			t.Errorf("a connection to where %s's redirect leads: journal ends %q, want a fetch from 203.0.113.9", redirected, j[len(j)-1])
		}
	}
}

// TestPortedOpHost: a request whose Host is the op's host with its port
// ("a.test:8080", as a client writes it) is the op's: answered from the
// op's routes and journaled for the op's host, and so is the lookup of its
// name, which is the op's one lookup. (Its port dropped first, it was
// another host's: 404, and a fetch of a host the grant does not list;
// its name's lookup was another host's, and the fetch journaled a second.)
func TestPortedOpHost(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{{Host: "a.test:8080", Path: "/data", Body: "hello"}}})
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test:8080", "/data"))
	lookupBoth(b, "a.test", false)
	if rec := serve(b, "GET", "/data", "a.test:8080"); rec.Code != 200 {
		t.Errorf("status %d, want 200", rec.Code)
	}
	wantJournal(t, w, "resolve a.test:8080 -> 203.0.113.1", "fetch a.test:8080 203.0.113.9 /data")
}
