package proxysut

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/networld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// fakeEnv makes the test binary a fake proxy (fakeProxy) of the mode it
// names, taking the example proxy's flags.
const fakeEnv = "PROXYSUT_FAKE_PROXY"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(fakeServerEnv); ok {
		os.Exit(fakeServer(mode, os.Args[1:]))
	}
	if mode, ok := os.LookupEnv(fakeEnv); ok {
		os.Exit(fakeProxy(mode, os.Args[1:]))
	}
	code := m.Run()
	if exampleBuild.dir != "" {
		os.RemoveAll(exampleBuild.dir)
	}
	os.Exit(code)
}

// fakeProxy is an HTTP forward proxy that answers every request as mode
// says:
//
//	open     fetch it, whatever the host and wherever it resolves, and
//	         relay the answer, a redirect included
//	follow   as open, but follow redirects naively: each Location is
//	         looked up and connected to by the proxy's HTTP client itself
//	followguard  as follow, but 502 where a connection would go to an
//	         internal address
//	deny     403
//	exit     exit 3 at once
//	hang     never answer
//	madeup   200 of its own, not the world's
//	cache    as open, but a name is looked up once for the proxy's life
//	cacheguard  as cache, but 403 where the answer, looked up or kept, is
//	         internal
//	tmpfile  as open, but first write a file "left" in its TMPDIR, as a
//	         browser's profile left behind when it is killed
//	chatty   as open, but first fetch http://clients2.google.com/time
//	         of its own, as a browser's clock check does
//	passconnect  send a CONNECT on to the server it names, as a request
//	         of its own, and relay the answer: no tunnel (a proxy in plain
//	         HTTP mode, as HAProxy's)
//	loopback as open, but connect to 127.0.0.1 with no lookup, whatever
//	         the host (a proxy whose destination was never set dials its
//	         own address)
//	usage    exit 2 at once, saying how it is used, as a proxy given
//	         flags it does not take does
//	elsewhere  listen on 127.0.0.1:9999, whatever it is told, and hang
//	peek   look the host up, connect to its address and close, then 403
//	auth   407 without Proxy-Authorization: Basic dTpw, else as open
//	hangup close the connection without an answer, and go on serving
//	denythenexit  403, then exit 3 once the answer is sent
//	longhead answer 403 with headers that never end
//	forged   answer 200 with the world's header and a body of its own,
//	         connecting to nothing
//	tlsonly  answer a CONNECT with 200 and close the tunnel at the first
//	         bytes that are not a TLS hello, as a proxy that inspects TLS
//	         does; close any other request unanswered
func fakeProxy(mode string, args []string) int {
	switch mode {
	case "usage":
		fmt.Fprintln(os.Stderr, "usage: fake -c CONFIG")
		return 2
	case "elsewhere":
		if _, err := net.Listen("tcp", "127.0.0.1:9999"); err != nil {
			return 1
		}
		select {}
	}
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	listen := fs.String("listen", "", "")
	fs.String("allow-file", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode {
		case "open", "cache", "cacheguard":
			relay(w, r, mode != "open", mode == "cacheguard")
		case "tmpfile":
			os.WriteFile(filepath.Join(os.TempDir(), "left"), []byte("x"), 0o600)
			relay(w, r, false, false)
		case "chatty":
			background()
			relay(w, r, false, false)
		case "passconnect":
			passConnect(w, r)
		case "loopback":
			fakeCache.Store(r.URL.Hostname(), netip.AddrFrom4([4]byte{127, 0, 0, 1}))
			relay(w, r, true, false)
		case "auth":
			if r.Header.Get("Proxy-Authorization") != "Basic dTpw" {
				http.Error(w, "fake: credentials, please", http.StatusProxyAuthRequired)
				return
			}
			relay(w, r, false, false)
		case "follow", "followguard":
			follow(w, r, mode == "followguard")
		case "deny":
			http.Error(w, "fake: denied", http.StatusForbidden)
		case "wary":
			wary(w, r)
		case "peek":
			peek(r.URL.Hostname())
			http.Error(w, "fake: looked, and denied", http.StatusForbidden)
		case "exit":
			os.Exit(3)
		case "denythenexit":
			http.Error(w, "fake: denied", http.StatusForbidden)
			http.NewResponseController(w).Flush()
			os.Exit(3)
		case "hangup":
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		case "longhead":
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				line := "X-H: " + strings.Repeat("a", 1000) + "\r\n"
				for _, err = io.WriteString(conn, "HTTP/1.1 403 Forbidden\r\n"); err == nil; _, err = io.WriteString(conn, line) {
				}
				conn.Close()
			}
		case "forged":
			w.Header().Set(networld.Header, "1")
			io.WriteString(w, "made up")
		case "tlsonly":
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				if r.Method == http.MethodConnect {
					io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
					conn.Read(make([]byte, 1)) // a GET's "G", not a TLS record's 0x16
				}
				conn.Close()
			}
		case "hang":
			select {}
		case "madeup":
			io.WriteString(w, "made up")
		}
	}))
	return 1
}

// peek looks host up and connects to its first address on port 80,
// sending nothing.
func peek(host string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return
	}
	var d net.Dialer
	if c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(addrs[0], 80).String()); err == nil {
		c.Close()
	}
}

// wary looks r's host up twice and refuses it when either answer is
// internal, as a guard that checks every answer would: a rebinding name's
// second answer is what it refuses.
func wary(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	for range 2 {
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", r.URL.Hostname())
		if err != nil || spec.IsInternal(addrs[0]) {
			http.Error(w, "fake: an internal answer", http.StatusForbidden)
			return
		}
	}
	http.Error(w, "fake: both answers public, and fetched nothing", http.StatusForbidden)
}

// fakeCache is the cache proxy's DNS cache: a name's first answer.
var fakeCache sync.Map

// relay fetches r's URL from the first address its host resolves to (or
// resolved to once, when cached), and copies the answer back; guarded,
// it refuses an internal address instead.
func relay(w http.ResponseWriter, r *http.Request, cached, guarded bool) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	var addrs []netip.Addr
	if a, ok := fakeCache.Load(r.URL.Hostname()); ok && cached {
		addrs = []netip.Addr{a.(netip.Addr)}
	} else {
		var err error
		if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", r.URL.Hostname()); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		fakeCache.Store(r.URL.Hostname(), addrs[0])
	}
	if guarded && spec.IsInternal(addrs[0]) {
		http.Error(w, "fake: an internal address", http.StatusForbidden)
		return
	}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", netip.AddrPortFrom(addrs[0], 80).String())
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL.String(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The transport alone: it never follows a redirect, which goes back
	// to the client as it came.
	resp, err := (&http.Transport{DialContext: dial, DisableKeepAlives: true}).RoundTrip(req)
	copyAnswer(w, resp, err)
}

// follow fetches r's URL with Go's HTTP client, its default policy
// following redirects, each hop resolved and dialled by the client: a
// naive proxy that checks nothing after the first request; guarded, it
// refuses to connect to an internal address, whichever hop asks it.
func follow(w http.ResponseWriter, r *http.Request, guarded bool) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL.String(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	if guarded {
		tr.DialContext = (&net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
			if ap, err := netip.ParseAddrPort(address); err == nil && spec.IsInternal(ap.Addr()) {
				return errors.New("fake: an internal address")
			}
			return nil
		}}).DialContext
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	copyAnswer(w, resp, err)
}

// background fetches http://clients2.google.com/time, as a browser's own
// machinery does whatever page it loads, and throws the answer away.
func background() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://clients2.google.com/time", nil)
	if err != nil {
		return
	}
	if resp, err := (&http.Transport{Proxy: nil, DisableKeepAlives: true}).RoundTrip(req); err == nil {
		resp.Body.Close()
	}
}

// passConnect sends r, a CONNECT, on to the server it names as a request
// of its own, and relays the answer.
func passConnect(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", r.Host, r.Host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	copyAnswer(w, resp, err)
}

// copyAnswer copies resp, the answer a fake proxy got, to its client; a
// failure err is 502.
func copyAnswer(w http.ResponseWriter, resp *http.Response, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// needNamespaces skips the test where network namespaces are
// unavailable, saying why.
func needNamespaces(t testing.TB) {
	t.Helper()
	if err := netns.Supported(); err != nil {
		t.Skip(err)
	}
}

// fakeTarget is the door to the fake proxy of mode, with profile.
func fakeTarget(t *testing.T, mode, profile string, op time.Duration) door.Target {
	t.Helper()
	tg, err := Target(fakeProxyCommand(t, mode), profile, Timeouts{Op: op})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// fakeProxyCommand is the command of the fake proxy of mode (this test
// binary, told by its environment), skipping the test where namespaces
// are unavailable.
func fakeProxyCommand(t *testing.T, mode string) string {
	t.Helper()
	needNamespaces(t)
	t.Setenv(fakeEnv, mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// checkOn judges the scenario src on target tg, narrowed as a campaign
// narrows it, and returns the findings' invariants and what the session
// counted.
func checkOn(t *testing.T, tg door.Target, src string, timeout time.Duration) ([]oracle.Finding, door.Tally) {
	t.Helper()
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := tg.Narrow(sc)
	if n.Scenario == nil || len(n.Skipped) > 0 {
		t.Fatalf("the door cannot be asked all of the scenario: skipped steps %v", n.Skipped)
	}
	f, end, tally, err := tg.StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	fs, err := oracle.Check(f, n.Scenario, nil, oracle.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return fs, tally()
}

func invariants(fs []oracle.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Invariant.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestOpenProxy: a proxy that fetches whatever it is asked is caught on
// what it really connected to: an ungranted host (confinement), an
// address a granted name resolves to that is internal
// (no-internal-egress), each a verdict the model does not give. A fetch
// it is allowed to make is ok with the world's body, counted as let
// through (what a run that let none through warns of).
func TestOpenProxy(t *testing.T) {
	tg := fakeTarget(t, "open", "", 0)
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"allowed", "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s => ok \"hello\"\n", nil},
		{"ungranted", "grant net a.test\nroute b.test /s hello\n\nnet_fetch b.test /s\n", []string{"confinement", "verdict-matches-model"}},
		{"internal", "grant net a.test\ndns a.test 10.0.0.7\nroute a.test /s hello\n\nnet_fetch a.test /s\n", []string{"no-internal-egress", "verdict-matches-model"}},
	} {
		fs, tally := checkOn(t, tg, tc.src, 0)
		if got := invariants(fs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: findings %q, want %q\n%v", tc.name, got, tc.want, fs)
		}
		if want := int64(btoi(tc.want == nil)); !tally.CountsPassed || tally.Passed != want {
			t.Errorf("%s: %d fetches the model allows let through (counted: %v), want %d", tc.name, tally.Passed, tally.CountsPassed, want)
		}
	}
}

// TestDenyingProxy: a proxy that refuses what the model allows is
// stricter: no finding, counted under its reason, a name it refused
// without looking it up under refused-allowed (not documentation-address:
// it never saw where the name leads, TestPeekingProxy's did), a dotted
// quad under ipv4-literal; one whose
// profile promises to let such fetches through is a verdict-matches-model
// finding. The proxy's own answer is what it said refusing.
func TestDenyingProxy(t *testing.T) {
	src := "grant net a.test\ngrant net 3221225728\ngrant net 100.128.0.1\nroute a.test /s hello\n\nnet_fetch a.test /s\nnet_fetch 3221225728 /\nnet_fetch 100.128.0.1 /\nnet_fetch b.test /\n"
	fs, tally := checkOn(t, fakeTarget(t, "deny", "", 0), src, 0)
	if len(fs) > 0 {
		t.Errorf("findings %v, want none", fs)
	}
	if want := map[string]int64{door.ReasonRefusedAllowed: 1, door.ReasonIPv4Spelling: 1, door.ReasonIPv4Literal: 1}; !mapsEqual(tally.Stricter, want) {
		t.Errorf("stricter %v, want %v", tally.Stricter, want)
	}
	if !tally.CountsPassed || tally.Passed != 0 {
		t.Errorf("a proxy that refuses all: %d fetches let through (counted: %v), want 0, counted", tally.Passed, tally.CountsPassed)
	}
	if said := tally.StricterSaid[door.ReasonRefusedAllowed]; said != "403 Forbidden: fake: denied" || tally.Said == 0 {
		t.Errorf("the refusal's words %q (%d said), want the proxy's status and body", said, tally.Said)
	}
	file := t.TempDir() + "/promising.json"
	if err := os.WriteFile(file, []byte(`{"name": "promising", "args": ["-listen", "{{listen}}"], "promises": ["refused-allowed"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fs, _ = checkOn(t, fakeTarget(t, "deny", file, 0), src, 0)
	if got := invariants(fs); !slices.Equal(got, []string{"verdict-matches-model"}) || fs[0].Step != 1 {
		t.Errorf("promising profile: findings %v, want verdict-matches-model at step 1", fs)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestPeekingProxy: a proxy that connects for a fetch it then refuses is
// a refusal all the same (stricter where the model allows the fetch), not
// a fetch let through; where its profile promises the fetch, the refusal
// is a finding, and so is the connection it made for it.
func TestPeekingProxy(t *testing.T) {
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	fs, tally := checkOn(t, fakeTarget(t, "peek", "", 0), src, 0)
	if want := map[string]int64{door.ReasonDocumentation: 1}; len(fs) > 0 || tally.Passed != 0 || !mapsEqual(tally.Stricter, want) {
		t.Errorf("findings %v, %d let through, stricter %v; want none, 0, %v", fs, tally.Passed, tally.Stricter, want)
	}
	file := t.TempDir() + "/promising.json"
	if err := os.WriteFile(file, []byte(`{"name": "promising", "args": ["-listen", "{{listen}}", "-allow-file", "{{hosts_file}}"], "promises": ["all"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fs, _ = checkOn(t, fakeTarget(t, "peek", file, 0), src, 0)
	if got := invariants(fs); !slices.Equal(got, []string{"no-effect-on-denial", "verdict-matches-model"}) {
		t.Errorf("promising profile: findings %q, want no-effect-on-denial (it connected for the fetch it refused) and verdict-matches-model", got)
	}
}

// TestBrokenProxies: a proxy that exits, one that never answers, and one
// that makes up an answer of its own are each a total finding at the op.
func TestBrokenProxies(t *testing.T) {
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	for _, tc := range []struct {
		mode, words string
		hang        bool
		timeout     time.Duration // short only where the proxy never answers
	}{{"exit", "exited with status 3", false, 10 * time.Second}, {"hang", "did not return", true, 200 * time.Millisecond}, {"madeup", "without X-Sbxfuzz-World", false, 10 * time.Second},
		// An answer whose headers never end is cut at a bound, not read
		// until the timeout into the harness's memory.
		{"longhead", "a status line and headers of more than 1048576 bytes", false, 20 * time.Second},
		{"forged", "no request of the op reached the world, nor did one for the URL before: an answer it made up", false, 10 * time.Second}} {
		fs, _ := checkOn(t, fakeTarget(t, tc.mode, "", tc.timeout), src, tc.timeout)
		if len(fs) == 0 || fs[0].Invariant.String() != "total" || fs[0].Step != 1 || fs[0].Hang != tc.hang || !strings.Contains(fs[0].Detail, tc.words) {
			t.Errorf("%s: findings %v; want total at step 1 saying %q, hang %v", tc.mode, fs, tc.words, tc.hang)
		}
	}
}

// TestExitReapedLate: a proxy whose exit is seen after the grace (a
// busy machine reaps it late) is still a total finding, not a refusal,
// and one that closes a connection without an answer but goes on serving
// is a refusal (the model allows the fetch: stricter, no finding).
func TestExitReapedLate(t *testing.T) {
	defer func(g time.Duration) { exitGrace = g }(exitGrace)
	exitGrace = 0
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	fs, _ := checkOn(t, fakeTarget(t, "exit", "", 10*time.Second), src, 10*time.Second)
	if len(fs) == 0 || fs[0].Invariant.String() != "total" || !strings.Contains(fs[0].Detail, "exited with status 3") {
		t.Errorf("exit: findings %v; want total saying the proxy exited with status 3", fs)
	}
	fs, tally := checkOn(t, fakeTarget(t, "hangup", "", 10*time.Second), src, 10*time.Second)
	if len(fs) > 0 || tally.Stricter[door.ReasonRefusedAllowed] != 1 {
		t.Errorf("hangup: findings %v, stricter %v; want none, the fetch counted stricter", fs, tally.Stricter)
	}
	// A proxy that exited after it answered refuses the next connection:
	// its exit, not a failed dial.
	fs, _ = checkOn(t, fakeTarget(t, "denythenexit", "", 10*time.Second), src+"net_fetch a.test /s\n", 10*time.Second)
	if len(fs) == 0 || fs[0].Invariant.String() != "total" || fs[0].Step != 2 || !strings.Contains(fs[0].Detail, "exited with status 3") {
		t.Errorf("denythenexit: findings %v; want total at step 2 saying the proxy exited with status 3", fs)
	}
}

// TestBlockPageProfile: a proxy that answers a refusal with a page of its
// own and 200 (e2guardian's default) is a total finding, unless its
// profile's refusals match the page: then it is a refusal, judged as one
// (the model allows the fetch: stricter, no finding).
func TestBlockPageProfile(t *testing.T) {
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	file := t.TempDir() + "/blockpage.json"
	if err := os.WriteFile(file, []byte(`{"name": "blockpage", "args": ["-listen", "{{listen}}"], "refusals": ["\\Amade up\\z"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fs, tally := checkOn(t, fakeTarget(t, "madeup", file, 10*time.Second), src, 10*time.Second)
	if len(fs) > 0 || tally.Stricter[door.ReasonRefusedAllowed] != 1 {
		t.Errorf("findings %v, stricter %v; want none, the fetch counted stricter", fs, tally.Stricter)
	}
}

// exampleBuild is the example proxy, built once for the test binary
// (BuiltExample); TestMain removes its directory at the end.
var exampleBuild struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// BuiltExample is the path of examples/egressproxy built for the tests,
// once: a binary, so that each start does not build it again. It skips
// the test where namespaces are unavailable or no go command is on PATH.
func BuiltExample(t testing.TB) string {
	t.Helper()
	needNamespaces(t)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("building the example proxy needs the go command: %v", err)
	}
	b := &exampleBuild
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "proxysut-example-"); b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "egressproxy")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, goCmd, "build", "-o", b.bin, "github.com/sbxfuzz/sbxfuzz/examples/egressproxy/cmd/egressproxy").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("building the example proxy: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

// NeedNamespaces is needNamespaces, for the external tests.
func NeedNamespaces(t *testing.T) { needNamespaces(t) }

// TestSessionPool: the sandboxes of one grant share a proxy, held or not
// (a check's run and its replay); another grant gets another; past
// maxLive the least recently used one no sandbox holds is stopped; a
// failed proxy is never handed out again.
func TestSessionPool(t *testing.T) {
	exe := fakeProxyCommand(t, "deny")
	p, err := LoadProfile("")
	if err != nil {
		t.Fatal(err)
	}
	s := &session{argv: []string{exe}, profile: p, dir: t.TempDir(), tally: &door.Counter{}, run: &runState{}}
	defer s.end()
	get := func(hosts ...string) *proxy {
		t.Helper()
		px, err := s.get(hosts)
		if err != nil {
			t.Fatal(err)
		}
		return px
	}
	run, replay := get("a.test"), get("a.test")
	if run != replay {
		t.Error("a run and its replay of one grant got two proxies")
	}
	s.release(run)
	s.release(replay)
	other := get("b.test", "a.test")
	if other == run {
		t.Error("another grant got the same proxy")
	}
	s.release(other)
	if again := get("a.test"); again != run {
		t.Error("a proxy no sandbox holds was not kept for its grant")
	} else {
		s.release(again)
	}
	get("c.test") // a third grant: the least recently used, b.test's, goes
	if n := len(s.live); n != maxLive {
		t.Errorf("%d proxies live, want %d", n, maxLive)
	}
	run.failed.Store(true)
	if fresh := get("a.test"); fresh == run {
		t.Error("a failed proxy was handed out again")
	}
}

// TestFreshProfile: under a Fresh profile no two sandboxes share a
// proxy, not even a check's run and its replay of one grant, and a proxy
// no sandbox holds any more is stopped, not kept for the next.
func TestFreshProfile(t *testing.T) {
	exe := fakeProxyCommand(t, "deny")
	p, err := ParseProfile([]byte(`{"name": "fresh", "args": ["-listen", "{{listen}}"], "fresh": true}`))
	if err != nil {
		t.Fatal(err)
	}
	s := &session{argv: []string{exe}, profile: p, dir: t.TempDir(), tally: &door.Counter{}, run: &runState{}}
	defer s.end()
	run, err := s.get([]string{"a.test"})
	if err != nil {
		t.Fatal(err)
	}
	replay, err := s.get([]string{"a.test"})
	if err != nil {
		t.Fatal(err)
	}
	if run == replay {
		t.Error("a run and its replay share a proxy under a fresh profile")
	}
	s.release(run)
	s.release(replay)
	if n := len(s.live); n != 0 {
		t.Errorf("%d proxies kept after their sandboxes were closed, want 0", n)
	}
	next, err := s.get([]string{"a.test"})
	if err != nil {
		t.Fatal(err)
	}
	if next == run || next == replay {
		t.Error("a released proxy was handed out again under a fresh profile")
	}
}

// TestDNSCachedAcrossScenarios: a proxy that keeps a DNS answer of one
// scenario's world and fetches from it in the next scenario's is not
// judged on it twice: the door sees the fetch from an earlier world's
// answer, counts it, and from then on gives every sandbox a proxy of its
// own, so the same scenario judged again passes.
func TestDNSCachedAcrossScenarios(t *testing.T) {
	tg := fakeTarget(t, "cache", "", 0)
	f, end, tally, err := tg.StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	check := func(src string) []oracle.Finding {
		t.Helper()
		sc, err := scenario.Parse("t.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		fs, err := oracle.Check(f, sc, nil, oracle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	first := "grant net a.test\ndns a.test 203.0.113.7\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	second := "grant net a.test\ndns a.test 203.0.113.1\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	if fs := check(first); len(fs) > 0 {
		t.Fatalf("the first scenario: %v", fs)
	}
	check(second) // fetched from the first world's 203.0.113.7
	if n := tally().Stale; n == 0 {
		t.Error("a fetch from an earlier world's DNS answer was not counted")
	}
	if fs := check(second); len(fs) > 0 {
		t.Errorf("judged again after the door saw the cache: %v, want no finding (a proxy of its own)", fs)
	}
}

// TestDNSKeptWithinAScenario: a proxy that keeps a DNS answer fetches a
// name the second time with no lookup of it: counted as kept, and the
// replay marks the step; a proxy that looks the name up every time is
// not counted.
func TestDNSKeptWithinAScenario(t *testing.T) {
	const src = "grant net a.test\ndns a.test 203.0.113.7\nroute a.test /s hello\n\nnet_fetch a.test /s\nnet_fetch a.test /s\n"
	for _, tc := range []struct {
		mode string
		kept int64
	}{{"cache", 1}, {"open", 0}} {
		fs, tally := checkOn(t, fakeTarget(t, tc.mode, "", 0), src, 0)
		if n := tally.Kept; n != tc.kept || len(fs) > 0 {
			t.Errorf("%s: %d fetches counted as kept, findings %v; want %d and none", tc.mode, n, fs, tc.kept)
		}
	}
}

// TestTmpDirGoesWithTheProxy: a profile whose TMPDIR is {{tmp}} gives
// the proxy a short directory of its own in the system's temporary
// directory, where what it leaves (a killed browser's profile) goes, and
// which is removed with the proxy; one that a killed run left is removed
// when the next run makes its first.
func TestTmpDirGoesWithTheProxy(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true to take a dead pid from:", err)
	}
	killed := filepath.Join(os.TempDir(), tmpPrefix+strconv.Itoa(dead.Process.Pid)+"-1")
	if err := os.MkdirAll(filepath.Join(killed, "left"), 0o700); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(t.TempDir(), "tmp.json")
	if err := os.WriteFile(profile, []byte(`{"name": "tmp", "args": ["-listen", "{{listen}}", "-allow-file", "{{hosts_file}}"], "env": {"TMPDIR": "{{tmp}}"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tg := fakeTarget(t, "tmpfile", profile, 0)
	f, end, _, err := tg.StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("t.sbx", []byte("grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fs, err := oracle.Check(f, sc, nil, oracle.Options{}); err != nil || len(fs) > 0 {
		t.Fatalf("findings %v, %v", fs, err)
	}
	left, _ := filepath.Glob(filepath.Join(os.TempDir(), tmpPrefix+"*", "left"))
	if len(left) != 1 || len(filepath.Dir(left[0])) > len(os.TempDir())+40 {
		t.Errorf("files left in {{tmp}}: %q; want one, in a short directory under %s", left, os.TempDir())
	}
	if err := end(); err != nil {
		t.Fatal(err)
	}
	if gone, _ := filepath.Glob(filepath.Join(os.TempDir(), tmpPrefix+"*")); len(gone) > 0 {
		t.Errorf("%q left once the proxies ended", gone)
	}
}

// TestIgnoredHosts: a proxy whose own machinery fetches a host of its
// own on every request is a confinement finding, the traffic taken for
// the op's; given ignore_hosts for that host, its DNS server answers it
// nothing, nothing is journaled, and no finding is made; a scenario that
// names an ignored host is not sent.
func TestIgnoredHosts(t *testing.T) {
	const src = "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	fs, _ := checkOn(t, fakeTarget(t, "chatty", "", 0), src, 0)
	if !slices.Contains(invariants(fs), "confinement") {
		t.Errorf("without ignore_hosts: findings %v, want confinement", invariants(fs))
	}
	profile := filepath.Join(t.TempDir(), "chatty.json")
	if err := os.WriteFile(profile, []byte(`{"name": "chatty", "args": ["-listen", "{{listen}}", "-allow-file", "{{hosts_file}}"], "ignore_hosts": ["(^|\\.)google\\.com$"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tg := fakeTarget(t, "chatty", profile, 0)
	if fs, tally := checkOn(t, tg, src, 0); len(fs) > 0 || tally.Passed != 1 {
		t.Errorf("with ignore_hosts: findings %v, %d fetches let through; want none, and 1", fs, tally.Passed)
	}
	for _, named := range []string{"grant net a.test www.google.com\n\nnet_fetch a.test /\n", "grant net a.test\nredirect a.test /go http://Clients2.Google.COM./x\n\nnet_fetch a.test /go\n"} {
		sc, err := scenario.Parse("t.sbx", []byte(named))
		if err != nil {
			t.Fatal(err)
		}
		if tg.Adapt(sc) != nil {
			t.Errorf("%q names an ignored host, and is sent", named)
		}
	}
}

// TestUnansweredRefusalsSaySo: a proxy that closes the connection
// without an answer is refused in words that say so, and one that opens a
// tunnel and then closes it at the plain request sent through (it waits
// for TLS) says that, and which mode asks it.
func TestUnansweredRefusalsSaySo(t *testing.T) {
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	for _, tc := range []struct{ mode, profile, want string }{
		{"hangup", "", "closed the connection without an answer"},
		{"tlsonly", "egressproxy-connect", `200 OK to CONNECT, then closed at the request in the tunnel (a refusal in it, or a wait for TLS: try "mode": "absolute")`},
	} {
		fs, tally := checkOn(t, fakeTarget(t, tc.mode, tc.profile, 0), src, 0)
		if len(fs) > 0 {
			t.Errorf("%s: findings %v, want none", tc.mode, fs)
		}
		if said := tally.StricterSaid[door.ReasonRefusedAllowed]; said != tc.want {
			t.Errorf("%s: refused in the words %q, want %q", tc.mode, said, tc.want)
		}
	}
}

// TestConnectPassedOn: a proxy asked by CONNECT that sends the CONNECT
// on to the server as a request, opening no tunnel, is a total finding
// whose words say so and name the profile's mode.
func TestConnectPassedOn(t *testing.T) {
	fs, _ := checkOn(t, fakeTarget(t, "passconnect", "egressproxy-connect", 0), "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n", 0)
	if len(fs) == 0 || fs[0].Invariant != oracle.Total || !strings.Contains(fs[0].Detail, "CONNECT it passed on as a request: it opens no tunnel") {
		t.Errorf("findings %v, want a total finding that says the CONNECT was passed on", fs)
	}
}

// TestNoLookupIsNoKeptAnswer: a proxy that connects for a name it never
// looked up, to an address no answer for the name gave (its own), is not
// counted as keeping an answer: where it went is the finding.
func TestNoLookupIsNoKeptAnswer(t *testing.T) {
	const src = "grant net a.test\ndns a.test 203.0.113.7\nroute a.test /s hello\n\nnet_fetch a.test /s\nnet_fetch a.test /s\n"
	fs, tally := checkOn(t, fakeTarget(t, "loopback", "", 0), src, 0)
	if tally.Kept != 0 || !slices.Contains(invariants(fs), "no-internal-egress") {
		t.Errorf("%d fetches counted as kept, findings %v; want none kept, and no-internal-egress", tally.Kept, invariants(fs))
	}
}

// TestRefusedOnAKeptAnswer: a guard that keeps a name's internal answer
// refuses the name's next fetch without looking it up, where the model's
// next lookup answers a public address: stricter, counted as kept-answer,
// not as a name refused for itself.
func TestRefusedOnAKeptAnswer(t *testing.T) {
	const src = "grant net a.test\ndns a.test 10.0.0.1 203.0.113.7\nroute a.test /s hello\n\nnet_fetch a.test /s\nnet_fetch a.test /s\n"
	fs, tally := checkOn(t, fakeTarget(t, "cacheguard", "", 0), src, 0)
	if want := map[string]int64{door.ReasonKeptAnswer: 1}; len(fs) > 0 || !mapsEqual(tally.Stricter, want) {
		t.Errorf("stricter %v, findings %v; want %v and none", tally.Stricter, fs, want)
	}
}

// TestRefusedAfterARedirect: a proxy that follows the world's redirect
// and refuses its internal Location answers an error where the model
// returns the redirect's URL: stricter, counted as followed-redirect, not
// by the shape of the op's host; one that refuses the op's host itself is
// not.
func TestRefusedAfterARedirect(t *testing.T) {
	const src = "grant net a.test\nredirect a.test /go http://10.0.0.1/admin\nroute 10.0.0.1 /admin LEAK\n\nnet_fetch a.test /go\n"
	fs, tally := checkOn(t, fakeTarget(t, "followguard", "", 0), src, 0)
	if want := map[string]int64{door.ReasonFollowedRedirect: 1}; len(fs) > 0 || !mapsEqual(tally.Stricter, want) {
		t.Errorf("stricter %v, findings %v; want %v and none", tally.Stricter, fs, want)
	}
	// Through a second host the world answers (another redirect) before
	// the Location it refuses: still followed-redirect, not another-host,
	// since the op's own request reached the world.
	const chain = "grant net a.test\nredirect a.test /go http://b.test/next\nredirect b.test /next http://10.0.0.1/admin\nroute 10.0.0.1 /admin LEAK\n\nnet_fetch a.test /go\n"
	fs, tally = checkOn(t, fakeTarget(t, "followguard", "", 0), chain, 0)
	if want := map[string]int64{door.ReasonFollowedRedirect: 1}; !mapsEqual(tally.Stricter, want) {
		t.Errorf("through a second host: stricter %v, findings %v; want %v", tally.Stricter, fs, want)
	}
	_, tally = checkOn(t, fakeTarget(t, "deny", "", 0), src, 0)
	if tally.Stricter[door.ReasonFollowedRedirect] != 0 {
		t.Errorf("a proxy that refused the op's host: stricter %v, want none followed-redirect", tally.Stricter)
	}
}

// TestLiteralFetchIsNoCachedAnswer: a proxy that follows a redirect to
// an address literal asks no DNS server for it; the world journals the
// literal's resolve in its own world (networld), so an earlier world
// that resolved the same literal for an op of its own does not make that
// fetch a cached DNS answer: no stale fetch is counted, and the proxy is
// not replaced for every sandbox.
func TestLiteralFetchIsNoCachedAnswer(t *testing.T) {
	tg := fakeTarget(t, "follow", "", 0)
	f, end, tally, err := tg.StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	for _, src := range []string{
		// One grant, so one proxy serves both worlds: the first
		// resolves the literal for its op, the second fetches it for a
		// redirect with no resolve.
		"grant net a.test 127.0.0.1\n\nnet_fetch 127.0.0.1 /\n",
		"grant net a.test 127.0.0.1\nredirect a.test /r http://127.0.0.1/\n\nnet_fetch a.test /r\n",
	} {
		sc, err := scenario.Parse("t.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := oracle.Check(f, sc, nil, oracle.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := tally().Stale; n != 0 {
		t.Errorf("%d fetches counted as from an earlier world's DNS answer, want 0: the literal was resolved in its own world", n)
	}
}

// TestStartFailureNamesCommand: a proxy that exits before it listens is
// a setup error that quotes its last words and the command line run, and
// says which profile rendered it: with none given, that the default is
// the example proxy's and --profile is wanted. A finding on a proxy run
// without a profile names it by its command.
func TestStartFailureNamesCommand(t *testing.T) {
	exe := fakeTarget(t, "usage", "", 0).Name[len(Prefix):]
	for _, tc := range []struct{ profile, want string }{
		{"", " -listen 127.0.0.1:3128 -allow-file "},
		{"", "hosts.txt; profile egressproxy, the default: give --profile for your proxy)"},
		{"egressproxy", "hosts.txt; profile egressproxy)"},
	} {
		tg := fakeTarget(t, "usage", tc.profile, 0)
		_, _, _, err := tg.StartCounted()
		if err == nil || !strings.Contains(err.Error(), "exited with status 2 before it listened on 127.0.0.1:3128: usage: fake -c CONFIG (ran: "+exe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("profile %q: %v; want the status, the usage line, the command line run and %q", tc.profile, err, tc.want)
		}
	}
	fs, _ := checkOn(t, fakeTarget(t, "madeup", "", 0), "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n", 0)
	if len(fs) == 0 || !strings.Contains(fs[0].Detail, "failed: proxy "+exe+": answered 200") {
		t.Errorf("a finding on a proxy run without a profile: %v; want it named by its command %s", fs, exe)
	}
}

// TestStartListeningElsewhere: a proxy that listens where it was not told
// (a profile that does not say {{listen}}) is given up on after
// elsewhereGrace, not --start-timeout, and the error says where it
// listens, also when it came to listen there only after the grace (a
// loaded machine's slow start).
func TestStartListeningElsewhere(t *testing.T) {
	defer func(g time.Duration) { elsewhereGrace = g }(elsewhereGrace)
	elsewhereGrace = time.Millisecond // over before the proxy listens anywhere
	tg := fakeTarget(t, "elsewhere", "", 0)
	_, _, _, err := tg.StartCounted()
	if err == nil || !strings.Contains(err.Error(), "did not listen on 127.0.0.1:3128 within 1ms; it listens on 127.0.0.1:9999 instead") {
		t.Errorf("a proxy listening on 127.0.0.1:9999: %v; want it said, before --start-timeout", err)
	}
}

// TestStartTimeoutSaysSo: a proxy that listens nowhere it was told
// within --start-timeout is an error that says it is a timeout, which a
// campaign confirms on a fresh session before it counts.
func TestStartTimeoutSaysSo(t *testing.T) {
	tg, err := Target(fakeProxyCommand(t, "elsewhere"), "", Timeouts{Start: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = tg.StartCounted()
	var timeout interface{ Timeout() bool }
	if err == nil || !strings.Contains(err.Error(), "(--start-timeout)") || !errors.As(err, &timeout) || !timeout.Timeout() {
		t.Errorf("a proxy that did not listen in time: %v; want an error that says it is a timeout", err)
	}
}

// TestDeadSessionsSwept: a session's proxies live in a run directory of
// its own under proxiesDir, removed at its end; the run directory a
// killed harness left (its lock free, or none and its process gone) is
// removed when the next session starts.
func TestDeadSessionsSwept(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	runs, err := proxiesDir()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(runs, fmt.Sprintf("%d-0123456789abcdef", cmd.Process.Pid))
	if err := os.MkdirAll(filepath.Join(dead, "proxy-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, end, _, err := fakeTarget(t, "deny", "", 0).StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Errorf("%s, a dead session's, was left", dead)
	}
	entries, err := os.ReadDir(runs)
	if err != nil || len(entries) != 1 {
		t.Fatalf("the proxies' directory holds %v, %v; want the session's", entries, err)
	}
	end()
	if entries, _ := os.ReadDir(runs); len(entries) > 0 {
		t.Errorf("%v left after the session ended", entries)
	}
}

// TestStricterAnswersTheModelsLookup: a proxy that looks a rebinding name
// up twice a fetch and refuses its internal answer is stricter than the
// model in the first op, whose one lookup gets the public answer and finds
// nothing there, and agrees with it in the second, whose one lookup gets
// the internal answer: the door takes the model's answers by the model's
// count of lookups, not by the proxy's (which answered egress_internal,
// then not_found: false verdict-matches-model findings both).
func TestStricterAnswersTheModelsLookup(t *testing.T) {
	fs, tally := checkOn(t, fakeTarget(t, "wary", "", 0), "grant net rebind.example\ndns rebind.example 203.0.113.9 127.0.0.1\n\nnet_fetch rebind.example /\nnet_fetch rebind.example /\n", 0)
	if len(fs) != 0 {
		t.Errorf("findings %v, want none: the first refusal is stricter, the second the model's", fs)
	}
	if n := tally.Stricter[door.ReasonInternalAnswer]; n != 1 || len(tally.Stricter) != 1 {
		t.Errorf("stricter %v, want 1 op internal-answer: the proxy refused the internal answer it saw", tally.Stricter)
	}
}

// TestProfileHeaders: a proxy that wants credentials refuses every fetch
// without them (stricter, no finding), and fetches what the model allows
// once its profile's headers carry them.
func TestProfileHeaders(t *testing.T) {
	file := filepath.Join(t.TempDir(), "auth.json")
	profile := `{"name": "auth", "args": ["-listen", "{{listen}}", "-allow-file", "{{hosts_file}}"], "headers": {"Proxy-Authorization": "Basic dTpw"}}`
	if err := os.WriteFile(file, []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s => ok \"hello\"\n"
	fs, tally := checkOn(t, fakeTarget(t, "auth", file, 0), src, 0)
	if len(fs) > 0 || tally.Passed != 1 {
		t.Errorf("with its headers: findings %v, %d fetches let through; want none and 1", fs, tally.Passed)
	}
	fs, tally = checkOn(t, fakeTarget(t, "auth", "", 0), src, 0)
	if len(fs) > 0 || tally.Passed != 0 || tally.Stricter[door.ReasonRefusedAllowed] != 1 {
		t.Errorf("without: findings %v, %d let through, stricter %v; want the fetch refused, stricter", fs, tally.Passed, tally.Stricter)
	}
}

// TestDyingWordsOutliveALongLog: a proxy that logged past what is kept of
// its stderr, then failed, is reported with the words of its failure.
func TestDyingWordsOutliveALongLog(t *testing.T) {
	needNamespaces(t)
	script := `yes "INFO request served fine, nothing to see" | head -n 40000 >&2; echo "FATAL: out of file descriptors" >&2; exit 3`
	r, _, err := netns.Run(netns.Command{Argv: []string{"sh", "-c", script}}, netns.Network{})
	if err != nil {
		t.Fatal(err)
	}
	px := &proxy{result: r}
	if got := px.exitError().Error(); got != "the proxy exited with status 3: FATAL: out of file descriptors" || !r.Truncated {
		t.Errorf("exitError: %q (stderr truncated %v); want the proxy's last words", got, r.Truncated)
	}
}
