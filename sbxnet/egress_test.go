package sbxnet_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/sbxnet"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// sideDoor is the reference sandbox which, on every net_fetch (a denied
// one too), also opens a connection of its own over the world's network,
// as side says, before it answers.
type sideDoor struct {
	core.Sandbox
	n    *sbxnet.Network
	side func(n *sbxnet.Network)
}

func (s sideDoor) Run(op core.Op) core.Result {
	if op.Kind == core.OpFetch {
		s.side(s.n)
	}
	return s.Sandbox.Run(op)
}

func sideDoorFactory(side func(n *sbxnet.Network)) core.Factory {
	return func(g core.Grant, w core.World) (core.Sandbox, error) {
		return sideDoor{core.NewReference(g, w), sbxnet.New(w), side}, nil
	}
}

// rawExchange dials address, writes request (nothing when empty), reads
// until the endpoint closes, and closes.
func rawExchange(n *sbxnet.Network, address, request string) {
	c, err := n.DialContext(context.Background(), "tcp", address)
	if err != nil {
		return
	}
	if request != "" {
		io.WriteString(c, request)
		io.ReadAll(c)
	}
	c.Close()
}

// TestConnectionWithoutRequestIsJudged: a connection that sends no
// readable HTTP request (a TLS hello, bytes of another protocol, a
// connect and close) or a CONNECT reached its address all the same, and
// is journaled, as the network namespace journals it: a sandbox that
// makes one to an internal address on every fetch is found.
func TestConnectionWithoutRequestIsJudged(t *testing.T) {
	sides := map[string]func(n *sbxnet.Network){
		"tls": func(n *sbxnet.Network) {
			tr := &http.Transport{DialContext: n.DialContext, DisableKeepAlives: true, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
			if resp, err := (&http.Client{Transport: tr}).Get("https://169.254.169.254/latest/meta-data/"); err == nil {
				resp.Body.Close()
			}
		},
		"raw":    func(n *sbxnet.Network) { rawExchange(n, "10.0.0.1:6379", "SET x 1\r\n") },
		"silent": func(n *sbxnet.Network) { rawExchange(n, "10.0.0.1:6379", "") },
		"connect": func(n *sbxnet.Network) {
			rawExchange(n, "10.0.0.1:80", "CONNECT 10.0.0.1:6379 HTTP/1.1\r\nHost: 10.0.0.1:6379\r\n\r\n")
		},
	}
	for _, name := range []string{"tls", "raw", "silent", "connect"} {
		sc, err := scenario.Parse("side.sbx", []byte("grant net a.test\nnet_fetch a.test /\nnet_fetch evil.test /\n"))
		if err != nil {
			t.Fatal(err)
		}
		fs, err := oracle.Check(sideDoorFactory(sides[name]), sc, nil, oracle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		found := map[oracle.ID]bool{}
		for _, f := range fs {
			found[f.Invariant] = true
		}
		if !found[oracle.NoInternalEgress] {
			t.Errorf("%s: a sandbox that connected to an internal address on every fetch has no no-internal-egress finding: %v", name, fs)
		}
	}
}

// TestHTTP10WithoutHostIsForTheHostResolved: an HTTP/1.0 request without
// a Host, sent to the address the op's host resolved to, is a fetch of
// the op's host, as the namespace reads it, not of the host "".
func TestHTTP10WithoutHostIsForTheHostResolved(t *testing.T) {
	side := func(n *sbxnet.Network) {
		addrs, err := n.LookupNetIP(context.Background(), "ip", "a.test")
		if err != nil {
			return
		}
		rawExchange(n, net.JoinHostPort(addrs[0].String(), "80"), "GET / HTTP/1.0\r\n\r\n")
	}
	sc, err := scenario.Parse("http10.sbx", []byte("grant net a.test\nnet_fetch a.test /\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := oracle.Check(sideDoorFactory(side), sc, nil, oracle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		t.Errorf("a sandbox that fetched its granted host over HTTP/1.0 (no Host) is accused: %v", f)
	}
}

// keepAliveGuard is the plain guard with http.Transport's default
// keep-alives.
func keepAliveGuard(g core.Grant, w core.World) (core.Sandbox, error) {
	n := sbxnet.New(w)
	tr := &http.Transport{DialContext: plainDial(n), DisableCompression: true}
	egress := func(host, p string, room int64) (string, core.Kind) {
		req, err := http.NewRequest("GET", "http://"+host+p, nil)
		if err != nil {
			return "", core.NotFound
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return "", core.EgressInternal
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", core.NotFound
		}
		b, _ := io.ReadAll(resp.Body)
		return string(b), core.OK
	}
	return gosandbox.NewWithEgress(g, w, egress), nil
}

// TestKeepAliveGuardResolvesEachFetch: the endpoint closes every
// connection after one answer, as the namespace does, so a guard that
// keeps connections alive dials, and resolves, for each fetch, and is not
// accused of fetching without resolving.
func TestKeepAliveGuardResolvesEachFetch(t *testing.T) {
	sc, err := scenario.Parse("keepalive.sbx", []byte("grant net a.test\nroute a.test / hi\nnet_fetch a.test / => ok hi\nnet_fetch a.test / => ok hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := oracle.Check(keepAliveGuard, sc, nil, oracle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		t.Errorf("a guard with keep-alives is accused: %v", f)
	}
}

// holdsAcross dials in its first op and closes that connection, never
// used, in its second.
type holdsAcross struct {
	*core.Reference
	n    *sbxnet.Network
	dial string // a name, resolved at the dial, or an address, which journals nothing there
	held net.Conn
}

func (h *holdsAcross) Run(op core.Op) core.Result {
	if h.held == nil {
		h.held, _ = h.n.DialContext(context.Background(), "tcp", h.dial)
	} else {
		h.held.Close()
	}
	return h.Reference.Run(op)
}

// TestConnectionHeldPastItsOpIsJudgedThere: a connection made in one op
// and closed, unused, in the next is journaled at the end of the op that
// made it, as the network namespace journals it: a fetch of a.test's
// connection held past it is no finding, and the denied fetch after is
// not blamed for it; a denied fetch that connected, and held the
// connection, is found there (it went unjudged when journaled only as it
// ended), and the op after it is not blamed either.
func TestConnectionHeldPastItsOpIsJudgedThere(t *testing.T) {
	sc, err := scenario.Parse("held.sbx", []byte("grant net a.test\nnet_fetch a.test /\nnet_fetch evil.test /\n"))
	if err != nil {
		t.Fatal(err)
	}
	// A denied first op and a dial to an address journal nothing in op 1
	// but the connection.
	denied, err := scenario.Parse("denied.sbx", []byte("grant net a.test\nnet_fetch evil.test /\nnet_fetch evil.test /\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sc    *scenario.Scenario
		dial  string
		found bool // at step 1, and only there
	}{{sc, "a.test:80", false}, {sc, "203.0.113.1:80", false}, {denied, "203.0.113.1:80", true}} {
		sc, dial := tc.sc, tc.dial
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return &holdsAcross{Reference: core.NewReference(g, w), n: sbxnet.New(w), dial: dial}, nil
		}
		fs, err := oracle.Check(f, sc, nil, oracle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tc.found != (len(fs) > 0) || slices.ContainsFunc(fs, func(f oracle.Finding) bool { return f.Step != 1 }) {
			t.Errorf("%s: a connection to %s made in op 1 and closed in op 2 gave findings %v; want some at step 1 alone: %v", sc.Steps[0].Op.Args[0], dial, fs, tc.found)
		}
	}
}

// TestEveryAnswerCloses: an answer says "Connection: close" and the
// endpoint closes after it, even to a client that asked to keep the
// connection: each fetch is a connection of its own, as in the namespace.
func TestEveryAnswerCloses(t *testing.T) {
	sc, err := scenario.Parse("c.sbx", []byte("grant net a.test\nnet_fetch a.test /\n"))
	if err != nil {
		t.Fatal(err)
	}
	n := sbxnet.New(refworld.New(sc.World))
	defer n.Close()
	c, err := n.DialContext(context.Background(), "tcp", "a.test:80")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: keep-alive\r\n\r\n")
	done := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(c) // returns once the endpoint closes
		done <- string(b)
	}()
	select {
	case answer := <-done:
		if !strings.Contains(answer, "\r\nConnection: close\r\n") {
			t.Errorf("the answer does not say it closes:\n%s", answer)
		}
	case <-time.After(time.Minute):
		t.Fatal("the endpoint kept the connection open a minute after its answer")
	}
}

// warmConn dials while it is built and holds the connection, never used,
// until Close.
type warmConn struct {
	*core.Reference
	n    *sbxnet.Network
	held net.Conn
}

func (h *warmConn) Close() error { h.held.Close(); return h.n.Close() }

// TestConnectionOfTheBuildIsTheBuilds: a connection a sandbox makes while
// it is built, and holds unused, is journaled as the build's (SPEC §3): a
// granted host's is no finding, and the first op, a denied read, is not
// blamed for it; one to an address, a literal the grant does not list
// (there is no op whose host it could be for), is a finding of the build.
func TestConnectionOfTheBuildIsTheBuilds(t *testing.T) {
	for _, tc := range []struct {
		dial  string
		found bool
	}{{"a.test:80", false}, {"203.0.113.1:80", true}, {"10.0.0.1:6379", true}} {
		sc, err := scenario.Parse("w.sbx", []byte("grant net a.test\nfs_read /etc/passwd\nnet_fetch a.test /\n"))
		if err != nil {
			t.Fatal(err)
		}
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			n := sbxnet.New(w)
			c, err := n.DialContext(context.Background(), "tcp", tc.dial)
			if err != nil {
				return nil, err
			}
			return &warmConn{core.NewReference(g, w), n, c}, nil
		}
		fs, err := oracle.Check(f, sc, nil, oracle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tc.found != (len(fs) > 0) || slices.ContainsFunc(fs, func(f oracle.Finding) bool { return f.Step != 0 }) {
			t.Errorf("a connection to %s made while built: findings %v; want some of the build alone: %v", tc.dial, fs, tc.found)
		}
	}
}

// splitPost, at the end of its first op, sends the head of a POST to
// a.test and returns; in its second it sends the body and closes.
type splitPost struct {
	*core.Reference
	n    *sbxnet.Network
	held net.Conn
}

func (s *splitPost) Run(op core.Op) core.Result {
	res := s.Reference.Run(op) // first: the world is not asked from two goroutines at once
	if s.held == nil {
		s.held, _ = s.n.DialContext(context.Background(), "tcp", "a.test:80")
		io.WriteString(s.held, "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\n\r\n")
	} else {
		io.WriteString(s.held, "x")
		s.held.Close()
	}
	return res
}

// TestRequestIsTheOpsWhoseHeadItSent: a request whose head a fetch sent,
// and whose body comes in the next op, is journaled in the op that sent
// its head, whether the endpoint read the head before that op ended or
// the op's end journaled the connection first: never in the next op,
// whose denied fetch it would make an escape.
func TestRequestIsTheOpsWhoseHeadItSent(t *testing.T) {
	sc, err := scenario.Parse("post.sbx", []byte("grant net a.test\nnet_fetch a.test /\nnet_fetch evil.test /\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return &splitPost{Reference: core.NewReference(g, w), n: sbxnet.New(w)}, nil
		}
		fs, err := oracle.Check(f, sc, nil, oracle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(fs, func(f oracle.Finding) bool { return f.Step == 2 }) {
			t.Fatalf("check %d: the denied fetch is blamed for the request of the op before: %v", i, fs)
		}
	}
}
