package egressproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// A network in memory, for the tests: a resolver that answers from a
// table and counts its lookups, and a dialer that records the address
// each connection is aimed at and answers it with an HTTP server of a
// few lines. Nothing leaves the process.

// fakeNet is the resolver and the dialer; zero value plus dns is ready.
type fakeNet struct {
	// dns answers each lookup of a name with its next entry, in turn
	// (DNS rebinding is a list of more than one): a comma-separated list
	// of addresses, "" for none. A name it does not list has no address.
	dns map[string][]string
	// upstream answers a connection to addr; nil is answerOK.
	upstream func(c net.Conn, addr netip.Addr)
	// refuse makes every dial fail, as an unreachable upstream does.
	refuse bool

	mu       sync.Mutex
	lookups  map[string]int
	dials    []string // the address:port each connection was aimed at
	byName   []string // the names the dialer was asked to dial (and resolved itself)
	requests []string // "Host RequestURI" of each request the upstreams read
	wg       sync.WaitGroup
}

// LookupNetIP is the fake resolver.
func (n *fakeNet) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.lookups == nil {
		n.lookups = map[string]int{}
	}
	k := n.lookups[host]
	n.lookups[host]++
	answers, ok := n.dns[host]
	if !ok || len(answers) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var addrs []netip.Addr
	for s := range strings.SplitSeq(answers[k%len(answers)], ",") {
		if s != "" {
			addrs = append(addrs, netip.MustParseAddr(s))
		}
	}
	return addrs, nil
}

// Dial is the fake dialer. Given a name, it resolves it with the fake
// resolver first, as net.Dialer does: that is the second resolution a
// proxy that dials by name makes.
func (n *fakeNet) Dial(ctx context.Context, _, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		n.record(&n.byName, address)
		addrs, err := n.LookupNetIP(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return nil, fmt.Errorf("dial %s: no address", address)
		}
		a = addrs[0]
	}
	n.record(&n.dials, net.JoinHostPort(a.String(), port))
	if n.refuse {
		return nil, errors.New("connection refused")
	}
	client, server := net.Pipe()
	answer := n.upstream
	if answer == nil {
		answer = n.answerOK
	}
	n.wg.Go(func() {
		defer server.Close()
		answer(server, a)
	})
	return client, nil
}

func (n *fakeNet) record(list *[]string, s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	*list = append(*list, s)
}

// readRequest reads one request on c and records it.
func (n *fakeNet) readRequest(c net.Conn) (*http.Request, error) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err == nil {
		n.record(&n.requests, req.Host+" "+req.RequestURI)
	}
	return req, err
}

// answerOK answers one request 200, with a body that names the address.
func (n *fakeNet) answerOK(c net.Conn, a netip.Addr) {
	req, err := n.readRequest(c)
	if err != nil {
		return
	}
	body := "hello from " + a.String() + " for " + req.Header.Get("X-Client")
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-Upstream: yes\r\nKeep-Alive: timeout=5\r\nConnection: close\r\n\r\n%s", len(body), body)
}

// state is what the fake network saw, for comparison.
type state struct {
	Dials, ByName, Requests []string
	Lookups                 map[string]int
}

func (n *fakeNet) state() state {
	n.mu.Lock()
	defer n.mu.Unlock()
	return state{Dials: n.dials, ByName: n.byName, Requests: n.requests, Lookups: n.lookups}
}

// proxyOver is a correct proxy over n granting hosts.
func proxyOver(n *fakeNet, defect string, hosts ...string) *Proxy {
	return newProxy(Config{Hosts: hosts, Resolver: n, Dial: n.Dial, Timeout: 10 * time.Second}, defect)
}

// serve sends r through p and returns the answer. A proxy that does not
// answer within a generous bound fails the test rather than hanging it.
func serve(t *testing.T, p *Proxy, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil && v != http.ErrAbortHandler {
				panic(v)
			}
		}()
		p.ServeHTTP(w, r)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s %s: no answer", r.Method, r.RequestURI)
	}
	return w
}

// get is serve of GET url (absolute form, as a client of a proxy sends it).
func get(t *testing.T, p *Proxy, url string) *httptest.ResponseRecorder {
	t.Helper()
	return serve(t, p, httptest.NewRequest(http.MethodGet, url, nil))
}

// drain waits for the fake upstreams to finish.
func (n *fakeNet) drain() { n.wg.Wait() }
