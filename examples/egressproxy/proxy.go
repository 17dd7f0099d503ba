package egressproxy

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// Resolver answers a host's addresses; *net.Resolver is one.
type Resolver interface {
	// LookupNetIP is net.Resolver's: network is "ip", "ip4" or "ip6".
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc opens a connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Config is what a Proxy is built from. Its zero value is a proxy that
// grants nothing, over the machine's resolver and network.
type Config struct {
	// Hosts are the granted hosts, byte for byte as a request names them
	// ("a.test", "203.0.113.7", "[2001:db8::1]").
	Hosts []string
	// Resolver answers names; nil is net.DefaultResolver.
	Resolver Resolver
	// Dial connects to the address the guard checked; nil is a net.Dialer.
	Dial DialFunc
	// Timeout bounds each request, from its arrival to the last byte of
	// the answer (a CONNECT tunnel's whole life), so that a stuck upstream
	// holds nothing for ever; zero is DefaultTimeout.
	Timeout time.Duration
	// Log, when not nil, gets one line for each refusal and upstream failure.
	Log *log.Logger
}

// DefaultTimeout is Config.Timeout's default.
const DefaultTimeout = 30 * time.Second

// maxResponseHeaderBytes bounds an upstream's response header.
const maxResponseHeaderBytes = 64 << 10

// Proxy is the forward proxy, an http.Handler. It is safe for concurrent
// use.
type Proxy struct {
	hosts    []string
	resolver Resolver
	dial     DialFunc
	timeout  time.Duration
	log      *log.Logger
	upstream *http.Transport

	defect string // EGRESSPROXY_DEFECT: see defect.go
}

// New builds a proxy from c. It reads EGRESSPROXY_DEFECT once (see
// defect.go) and fails on a value that names no defect.
func New(c Config) (*Proxy, error) {
	d := os.Getenv(defectEnv)
	if d != "" && !slices.Contains(defects, d) {
		return nil, errUnknownDefect(d)
	}
	return newProxy(c, d), nil
}

func newProxy(c Config, defect string) *Proxy {
	p := &Proxy{hosts: slices.Clone(c.Hosts), resolver: c.Resolver, dial: c.Dial, timeout: c.Timeout, log: c.Log, defect: defect}
	if p.resolver == nil {
		p.resolver = net.DefaultResolver
	}
	if p.dial == nil {
		p.dial = (&net.Dialer{}).DialContext
	}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	p.upstream = &http.Transport{
		Proxy:       nil, // never another proxy from the environment
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) { return p.dial(ctx, network, addr) },
		// One connection per request: a pooled one would carry the next
		// request to an address checked for another host.
		DisableKeepAlives:      true,
		DisableCompression:     true, // the body as the upstream sent it
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		ResponseHeaderTimeout:  p.timeout,
	}
	return p
}

// ServeHTTP answers an absolute-form GET (GET http://host/path) by
// forwarding it, and a CONNECT host:80 by a tunnel, when the guard lets
// host through; else 403 with a body "egressproxy: denied: why". An
// upstream that cannot be reached or answers no HTTP is 502.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), p.timeout)
	defer cancel()
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(ctx, w, r)
	case !r.URL.IsAbs():
		http.Error(w, "egressproxy: not a proxy request: want GET http://host/path or CONNECT host:80", http.StatusBadRequest)
	case r.Method == http.MethodGet:
		p.forward(ctx, w, r)
	default:
		http.Error(w, "egressproxy: method "+r.Method+": only GET and CONNECT are served", http.StatusMethodNotAllowed)
	}
}

// forward sends a GET to the address the guard checked, with the Host the
// client named, and copies the answer back. Redirects are the client's to
// follow (through the proxy again), never the proxy's.
func (p *Proxy) forward(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	host, err := getTarget(r.URL)
	if err != nil {
		p.deny(w, r, err)
		return
	}
	dial, err := p.decide(ctx, host)
	if err != nil {
		p.deny(w, r, err)
		return
	}
	p.roundTrip(ctx, w, r, host, dial)
}

// roundTrip is forward's request to dial (an "addr:80") and its answer.
func (p *Proxy) roundTrip(ctx context.Context, w http.ResponseWriter, r *http.Request, host, dial string) {
	out := (&http.Request{
		Method: http.MethodGet,
		URL:    &url.URL{Scheme: "http", Host: dial, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery},
		Host:   host, // the Host header names the host, not the address dialled
		Header: endToEnd(r.Header),
	}).WithContext(ctx)
	if _, ok := out.Header["User-Agent"]; !ok {
		out.Header.Set("User-Agent", "") // none, rather than Go's own
	}
	resp, err := p.upstream.RoundTrip(out)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	defer resp.Body.Close()
	for k, v := range endToEnd(resp.Header) {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	if _, err := io.Copy(w, resp.Body); err != nil {
		// The status is sent: the client must see a broken answer, not a
		// short one that looks whole.
		p.logf("%s %s: upstream body: %v", r.Method, r.RequestURI, err)
		panic(http.ErrAbortHandler)
	}
}

// tunnel answers CONNECT host:80: it connects to the address the guard
// checked, answers 200, and copies bytes both ways until either side
// closes or the request's time is up.
func (p *Proxy) tunnel(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "egressproxy: CONNECT needs HTTP/1.1", http.StatusHTTPVersionNotSupported)
		return
	}
	host, err := connectTarget(r.URL.Host) // not r.Host: "CONNECT /x" takes that from a Host header
	if err != nil {
		p.deny(w, r, err)
		return
	}
	dial, err := p.decide(ctx, host)
	if err != nil {
		p.deny(w, r, err)
		return
	}
	upstream, err := p.dial(ctx, "tcp", dial)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	defer upstream.Close()
	client, buffered, err := hj.Hijack()
	if err != nil {
		p.logf("%s %s: hijack: %v", r.Method, r.RequestURI, err)
		return
	}
	defer client.Close()
	deadline, _ := ctx.Deadline()
	client.SetDeadline(deadline)
	upstream.SetDeadline(deadline)
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err == nil {
		splice(client, buffered.Reader, upstream)
	}
}

// splice copies the client's bytes (what the server had read ahead of
// them first) to upstream and upstream's back, until upstream is done
// answering; then it closes both ends, which ends the other copy.
func splice(client net.Conn, fromClient io.Reader, upstream net.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(upstream, fromClient)
		closeWrite(upstream) // the client is done asking; upstream may still answer
	}()
	io.Copy(client, upstream)
	client.Close()
	upstream.Close()
	<-done
}

// closeWrite half-closes c when it can, closes it otherwise.
func closeWrite(c net.Conn) {
	if hc, ok := c.(interface{ CloseWrite() error }); ok {
		hc.CloseWrite()
		return
	}
	c.Close()
}

// hopByHop are the headers of one connection, never forwarded (RFC 9110,
// "Connection-Specific Fields"), with the proxy ones.
var hopByHop = []string{
	"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"TE", "Trailer", "Transfer-Encoding", "Upgrade",
}

// endToEnd is a copy of h without hop-by-hop headers, nor those its
// Connection header names.
func endToEnd(h http.Header) http.Header {
	out := h.Clone()
	if out == nil {
		out = http.Header{}
	}
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			out.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopByHop {
		out.Del(name)
	}
	return out
}

// deny answers a refusal: 403 "egressproxy: denied: why".
func (p *Proxy) deny(w http.ResponseWriter, r *http.Request, why error) {
	p.logf("denied %s %s: %v", r.Method, r.RequestURI, why)
	http.Error(w, "egressproxy: denied: "+why.Error(), http.StatusForbidden)
}

// fail answers an upstream failure: 502.
func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	p.logf("%s %s: upstream: %v", r.Method, r.RequestURI, err)
	if errors.Is(err, context.DeadlineExceeded) {
		err = errors.New("upstream timed out")
	}
	http.Error(w, "egressproxy: upstream: "+err.Error(), http.StatusBadGateway)
}

func (p *Proxy) logf(format string, args ...any) {
	if p.log != nil {
		p.log.Printf(format, args...)
	}
}
