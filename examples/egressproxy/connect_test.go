package egressproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// connect sends CONNECT target through the proxy served at addr and, when
// it is answered 200, a GET of path through the tunnel. It returns the
// CONNECT's status and the tunnelled answer's body.
func connect(t *testing.T, addr, target, path string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute)) // a bound on a broken proxy, not a measurement
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, ""
	}
	host, _, _ := strings.Cut(target, ":")
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nX-Client: tunnel\r\n\r\n", path, host)
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET through the tunnel: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	return http.StatusOK, string(body)
}

// TestConnect: CONNECT host:80 to a granted public host is a tunnel to the
// address checked; another port, an ungranted or internal host, an IPv6
// literal among them, is refused before any connection.
func TestConnect(t *testing.T) {
	n := &fakeNet{dns: map[string][]string{"a.test": {"203.0.113.9"}, "db.test": {"10.0.0.5"}}}
	srv := httptest.NewServer(proxyOver(n, "", "a.test", "db.test", "[::1]", "[::ffff:10.0.0.1]"))
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	code, body := connect(t, addr, "a.test:80", "/in/tunnel")
	if code != http.StatusOK || body != "hello from 203.0.113.9 for tunnel" {
		t.Errorf("CONNECT a.test:80: %d %q, want a tunnel to 203.0.113.9", code, body)
	}
	for _, target := range []string{"a.test:443", "a.test", "b.test:80", "db.test:80", "[::1]:80", "[::ffff:10.0.0.1]:80", "[::1]:443"} {
		if code, _ := connect(t, addr, target, "/"); code != http.StatusForbidden {
			t.Errorf("CONNECT %s: %d, want 403", target, code)
		}
	}
	n.drain()
	if d := n.state().Dials; len(d) != 1 || d[0] != "203.0.113.9:80" {
		t.Errorf("dials %v, want only 203.0.113.9:80", d)
	}
	if r := n.state().Requests; len(r) != 1 || r[0] != "a.test /in/tunnel" {
		t.Errorf("upstream requests %v, want the tunnelled GET", r)
	}
}

// TestConnectUnreachable: a tunnel whose upstream cannot be reached is 502.
func TestConnectUnreachable(t *testing.T) {
	n := &fakeNet{dns: map[string][]string{"a.test": {"203.0.113.9"}}, refuse: true}
	srv := httptest.NewServer(proxyOver(n, "", "a.test"))
	defer srv.Close()
	if code, _ := connect(t, srv.Listener.Addr().String(), "a.test:80", "/"); code != http.StatusBadGateway {
		t.Errorf("CONNECT to a refusing upstream: %d, want 502", code)
	}
}
