//go:build unix

// Package python holds the Go tests of the Python example, sandbox.py: its
// --own-http mode (SPEC §14) judged offline, with its resolver and HTTP
// client replaced by tables (testdata/drive.py), against a loopback HTTP
// server, and for real in a network namespace.
package python

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// childTimeout bounds every Python child: far above what one needs, so a
// busy machine does not fail the test, and still an end to a hang.
const childTimeout = 2 * time.Minute

// maxOutput bounds what is kept of a child's stdout and of its stderr.
const maxOutput = 1 << 20

// python3 is the interpreter, or the test is skipped.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the example is a Python script")
	}
	return p
}

// ran is how a child ended.
type ran struct {
	code           int
	stdout, stderr string
}

// capped keeps the first maxOutput bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// runPython runs python3 with args, env and stdin, bounded in time and
// output, in a process group of its own that is killed on timeout.
func runPython(t *testing.T, env []string, stdin string, args ...string) ran {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python3(t), args...)
	// No __pycache__ left in the source tree by the imports of sandbox.py.
	cmd.Env, cmd.Stdin = append(env, "PYTHONDONTWRITEBYTECODE=1"), strings.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("python3 %s: no end within %v", strings.Join(args, " "), childTimeout)
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("python3 %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return ran{code, stdout.String(), stderr.String()}
}

// envWithout is this process's environment without the variable name.
func envWithout(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// The sbxfuzz/1 lines of a session that opens and closes at once.
const (
	initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol":"sbxfuzz/1"}}` + "\n"
	shutdown   = `{"jsonrpc":"2.0","id":2,"method":"shutdown","params":{}}` + "\n"
)

func TestOwnHTTPStartsOnlyInTheNamespace(t *testing.T) {
	base := envWithout("SBXFUZZ_NETNS")
	with := func(kv string) []string { return append(envWithout("SBXFUZZ_NETNS"), kv) }
	cases := []struct {
		name   string
		env    []string
		args   []string
		stderr string // what its one line says
	}{
		{"outside any namespace", base, []string{"--own-http"}, "SBXFUZZ_NETNS=1 is not set"},
		{"SBXFUZZ_NETNS=0", with("SBXFUZZ_NETNS=0"), []string{"--own-http"}, "SBXFUZZ_NETNS=1 is not set"},
		{"SBXFUZZ_NETNS empty", with("SBXFUZZ_NETNS="), []string{"--own-http"}, "SBXFUZZ_NETNS=1 is not set"},
		{"SBXFUZZ_NETNS=true", with("SBXFUZZ_NETNS=true"), []string{"--own-http"}, "SBXFUZZ_NETNS=1 is not set"},
		{"a misspelt flag", with("SBXFUZZ_NETNS=1"), []string{"--own_http"}, "usage: sandbox.py [--own-http]"},
		{"a flag too many", with("SBXFUZZ_NETNS=1"), []string{"--own-http", "-v"}, "usage: sandbox.py [--own-http]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runPython(t, c.env, initialize+shutdown, append([]string{"sandbox.py"}, c.args...)...)
			if r.code != 2 || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q; want exit 2 before answering anything", r.code, r.stdout)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("stderr %q; want one line saying %q", r.stderr, c.stderr)
			}
		})
	}
}

func TestOwnHTTPStartsWhenTheVariableIsSet(t *testing.T) {
	// The other side of the refusal: with the variable, and without the
	// flag, the child speaks sbxfuzz/1.
	for _, args := range [][]string{{"sandbox.py", "--own-http"}, {"sandbox.py"}} {
		r := runPython(t, append(envWithout("SBXFUZZ_NETNS"), "SBXFUZZ_NETNS=1"), initialize+shutdown, args...)
		want := `{"jsonrpc":"2.0","id":1,"result":{"name":"python-example","version":"0.1.0"}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
		if r.code != 0 || r.stdout != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and\n%s", args, r.code, r.stdout, r.stderr, want)
		}
	}
}

// job is what testdata/drive.py runs: ops on a Sandbox in --own-http mode.
type job struct {
	Grant    grant              `json:"grant"`
	Ops      [][]string         `json:"ops"`
	Resolver map[string]any     `json:"resolver,omitempty"` // host -> [addr...] or "fail"
	HTTP     map[string]*string `json:"http,omitempty"`     // path -> body, nil for no 200
	Get      []any              `json:"get,omitempty"`      // call http_get once instead: see drive.py
}

// grant is sandbox/open's grant, as much of it as these tests use.
type grant struct {
	Net     []string       `json:"net"`
	Budgets map[string]int `json:"budgets"`
}

// drove is what drive.py prints.
type drove struct {
	Results []string `json:"results"`
	Lookups []lookup `json:"lookups"`
	Gets    []get    `json:"gets"`
}

// lookup is one call of the system resolver: the name asked, and whether
// only a numeric literal would do.
type lookup struct {
	Host    string `json:"host"`
	Numeric bool   `json:"numeric"`
}

// get is one GET asked of the HTTP client: the address and port, the
// Host and path, and the output budget left.
type get struct {
	Addr  string `json:"addr"`
	Port  int    `json:"port"`
	Host  string `json:"host"`
	Path  string `json:"path"`
	Limit int    `json:"limit"`
}

// drive runs j with testdata/drive.py and decodes what it prints.
func drive(t *testing.T, j job, out any) {
	t.Helper()
	arg, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	r := runPython(t, os.Environ(), "", "testdata/drive.py", string(arg))
	if r.code != 0 {
		t.Fatalf("drive.py exited %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), out); err != nil {
		t.Fatalf("drive.py printed %q: %v (stderr %s)", r.stdout, err, r.stderr)
	}
}

func budgets(output int) map[string]int {
	return map[string]int{"ops": 100, "wall": 1000, "output": output}
}

func body(s string) *string { return &s }

func TestOwnFetchDecisions(t *testing.T) {
	// The resolver and the HTTP client are tables: what is seen is what the
	// guard decided, which name it asked for, and where it would connect.
	public := map[string]any{"api.test": []string{"203.0.113.7"}}
	routes := map[string]*string{"/status": body("ok"), "/q?d=%2e": body("q"), "/big": body("0123456789")}
	cases := []struct {
		name    string
		hosts   []string
		output  int
		answers map[string]any
		op      []string
		result  string
		lookups []lookup
		gets    []get
	}{
		{"a host the grant does not list: no lookup, no connection",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "evil.test", "/status"}, "egress_denied", nil, nil},
		{"the grant is exact: another case is another host",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "API.test", "/status"}, "egress_denied", nil, nil},
		{"a public answer: one lookup of the host as given, a GET to that address with the op's Host and path",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", "/status"}, "ok ok",
			[]lookup{{"api.test", false}}, []get{{"203.0.113.7", 80, "api.test", "/status", 100}}},
		{"the path goes as it is, query and percent-encodings included",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", "/q?d=%2e"}, "ok q",
			[]lookup{{"api.test", false}}, []get{{"203.0.113.7", 80, "api.test", "/q?d=%2e", 100}}},
		{"only the first answer is judged, and it is the one dialled",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"203.0.113.9", "10.0.0.1"}}, []string{"net_fetch", "a.test", "/status"}, "ok ok",
			[]lookup{{"a.test", false}}, []get{{"203.0.113.9", 80, "a.test", "/status", 100}}},
		{"a first answer that is internal is refused whatever follows",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"10.0.0.1", "203.0.113.9"}}, []string{"net_fetch", "a.test", "/status"}, "egress_internal",
			[]lookup{{"a.test", false}}, nil},
		{"a public IPv6 answer",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"2606:4700::1111"}}, []string{"net_fetch", "a.test", "/status"}, "ok ok",
			[]lookup{{"a.test", false}}, []get{{"2606:4700::1111", 80, "a.test", "/status", 100}}},
		{"IPv4-mapped: the IPv4 address inside is judged",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"::ffff:10.0.0.5"}}, []string{"net_fetch", "a.test", "/status"}, "egress_internal",
			[]lookup{{"a.test", false}}, nil},
		{"NAT64 of the metadata address",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"64:ff9b::a9fe:a9fe"}}, []string{"net_fetch", "a.test", "/status"}, "egress_internal",
			[]lookup{{"a.test", false}}, nil},
		{"6to4 of loopback",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"2002:7f00:1::1"}}, []string{"net_fetch", "a.test", "/status"}, "egress_internal",
			[]lookup{{"a.test", false}}, nil},
		{"the shared address space 100.64/10",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"100.127.255.254"}}, []string{"net_fetch", "a.test", "/status"}, "egress_internal",
			[]lookup{{"a.test", false}}, nil},
		{"no answer: fail closed",
			[]string{"a.test"}, 100, map[string]any{"a.test": "fail"}, []string{"net_fetch", "a.test", "/status"}, "egress_internal",
			[]lookup{{"a.test", false}}, nil},
		{"a bracketed IPv6 literal is parsed, never asked of DNS",
			[]string{"[::1]"}, 100, map[string]any{"::1": []string{"::1"}}, []string{"net_fetch", "[::1]", "/"}, "egress_internal",
			[]lookup{{"::1", true}}, nil},
		{"a bracketed public literal keeps its brackets in Host",
			[]string{"[2606:4700::2222]"}, 100, map[string]any{"2606:4700::2222": []string{"2606:4700::2222"}}, []string{"net_fetch", "[2606:4700::2222]", "/status"}, "ok ok",
			[]lookup{{"2606:4700::2222", true}}, []get{{"2606:4700::2222", 80, "[2606:4700::2222]", "/status", 100}}},
		{"a path with a space cannot be sent: not found, no connection",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", "/a b"}, "not_found", []lookup{{"api.test", false}}, nil},
		{"a path that is not absolute cannot be sent",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", "status"}, "not_found", []lookup{{"api.test", false}}, nil},
		{"an empty path cannot be sent (it would go as /)",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", ""}, "not_found", []lookup{{"api.test", false}}, nil},
		{"a path with a control byte cannot be sent",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", "/a\r\nX: y"}, "not_found", []lookup{{"api.test", false}}, nil},
		{"a non-ASCII path cannot be sent unencoded",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", "/caf\u00e9"}, "not_found", []lookup{{"api.test", false}}, nil},
		{"the address is judged before the path: internal wins",
			[]string{"a.test"}, 100, map[string]any{"a.test": []string{"127.0.0.1"}}, []string{"net_fetch", "a.test", "/a b"}, "egress_internal",
			[]lookup{{"a.test", false}}, nil},
		{"a non-ASCII host is looked up as its bytes, and cannot be a Host",
			[]string{"b\u00fccher.test"}, 100, map[string]any{"b\u00fccher.test": []string{"203.0.113.7"}}, []string{"net_fetch", "b\u00fccher.test", "/status"}, "not_found",
			[]lookup{{"b\u00fccher.test", false}}, nil},
		{"a host with a byte no Host may hold",
			[]string{"a|b.test"}, 100, map[string]any{"a|b.test": []string{"203.0.113.7"}}, []string{"net_fetch", "a|b.test", "/status"}, "not_found",
			[]lookup{{"a|b.test", false}}, nil},
		{"no 200: not found",
			[]string{"api.test"}, 100, public, []string{"net_fetch", "api.test", "/missing"}, "not_found",
			[]lookup{{"api.test", false}}, []get{{"203.0.113.7", 80, "api.test", "/missing", 100}}},
		{"a body past the output budget halts",
			[]string{"api.test"}, 9, public, []string{"net_fetch", "api.test", "/big"}, "max_output_bytes",
			[]lookup{{"api.test", false}}, []get{{"203.0.113.7", 80, "api.test", "/big", 9}}},
		{"a body exactly at the output budget",
			[]string{"api.test"}, 10, public, []string{"net_fetch", "api.test", "/big"}, "ok 0123456789",
			[]lookup{{"api.test", false}}, []get{{"203.0.113.7", 80, "api.test", "/big", 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got drove
			drive(t, job{Grant: grant{c.hosts, budgets(c.output)}, Ops: [][]string{c.op}, Resolver: c.answers, HTTP: routes}, &got)
			want := drove{Results: []string{c.result}, Lookups: c.lookups, Gets: c.gets}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%q (-want +got)\n%s", c.op, diff)
			}
		})
	}
}

// metaURL is the Location of the redirects the test servers answer.
const metaURL = "http://169.254.169.254/latest/meta-data/"

// seen is a request as a server received it.
type seen struct{ Method, Host, Target, Connection string }

// recorder is an http.Handler that answers by path and keeps what it saw.
type recorder struct {
	mu   sync.Mutex
	seen []seen
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.seen = append(rec.seen, seen{r.Method, r.Host, r.RequestURI, r.Header.Get("Connection")})
	rec.mu.Unlock()
	switch r.URL.Path {
	case "/ok", "/q":
		fmt.Fprint(w, "hello")
	case "/big":
		fmt.Fprint(w, strings.Repeat("x", 100))
	case "/err":
		http.Error(w, "boom", http.StatusInternalServerError)
	case "/moved": // as the world answers a redirect route
		w.Header().Set("Location", metaURL)
		w.WriteHeader(http.StatusFound)
		fmt.Fprint(w, metaURL)
	case "/moved-permanently":
		http.Redirect(w, r, metaURL, http.StatusMovedPermanently)
	default:
		http.NotFound(w, r)
	}
}

func (rec *recorder) take() []seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	s := rec.seen
	rec.seen = nil
	return s
}

func TestHTTPGetAnswers(t *testing.T) {
	// sandbox.py's HTTP client against a loopback server: the request it
	// sends, and how each answer maps to a body or to nothing.
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	cases := []struct {
		path  string
		limit int
		body  *string // nil: no body (not_found)
	}{
		{"/ok", 100, body("hello")},
		{"/q?d=%2e&x=..%2f", 100, body("hello")},
		{"/missing", 100, nil},
		{"/err", 100, nil},
		{"/moved", 100, body(metaURL)},                    // the 302's body, its URL; never followed: one request
		{"/moved-permanently", 100, nil},                  // no answer the world gives
		{"/big", 10, body(strings.Repeat("x", 11))},       // the budget and one byte: enough to halt
		{"/big", 1 << 30, body(strings.Repeat("x", 100))}, // a large budget: the whole body
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %d", c.path, c.limit), func(t *testing.T) {
			var got struct{ Body *string }
			drive(t, job{Get: []any{4, "127.0.0.1", port, "api.test", c.path, c.limit}}, &got)
			if diff := cmp.Diff(c.body, got.Body); diff != "" {
				t.Errorf("body (-want +got)\n%s", diff)
			}
			want := []seen{{"GET", "api.test", c.path, "close"}}
			if diff := cmp.Diff(want, rec.take()); diff != "" {
				t.Errorf("requests the server saw (-want +got)\n%s", diff)
			}
		})
	}
}

func TestHTTPGetFailures(t *testing.T) {
	// A port nobody listens on, and a server that never answers: no body,
	// and an end (the client's own timeout, well under childTimeout).
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	silent := l.Addr().(*net.TCPAddr).Port
	defer l.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	for _, c := range []struct {
		name string
		port int
	}{{"refused", refused}, {"silent", silent}} {
		t.Run(c.name, func(t *testing.T) {
			var got struct{ Body *string }
			drive(t, job{Get: []any{4, "127.0.0.1", c.port, "api.test", "/ok", 100}}, &got)
			if got.Body != nil {
				t.Errorf("body %q; want none", *got.Body)
			}
		})
	}
}

func TestInternalCheckMatchesSpec(t *testing.T) {
	// The guard's address check against the SPEC's (internal/spec), at
	// every edge of every range of §6 and in every embedding form of each
	// IPv4 edge, as the system resolver writes addresses.
	var addrs []string
	for _, r := range iprange.Ranges() {
		first, last := iprange.Edges(r)
		for _, a := range []netip.Addr{first.Prev(), first, first.Next(), last.Prev(), last, last.Next()} {
			if !a.IsValid() {
				continue
			}
			addrs = append(addrs, a.String())
			if a.Is4() {
				addrs = append(addrs, embeddings(a)...)
			}
		}
	}
	in, err := json.Marshal(addrs)
	if err != nil {
		t.Fatal(err)
	}
	script := `import json, sys; sys.path.insert(0, "."); import sandbox
print(json.dumps([sandbox.is_internal(a) for a in json.load(sys.stdin)]))`
	r := runPython(t, os.Environ(), string(in), "-c", script)
	var got []bool
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || len(got) != len(addrs) {
		t.Fatalf("python printed %q (exit %d, %s): %v", r.stdout, r.code, r.stderr, err)
	}
	wrong := 0
	for i, a := range addrs {
		if want := spec.IsInternal(netip.MustParseAddr(a)); got[i] != want {
			t.Errorf("is_internal(%q) = %v, SPEC §6 says %v", a, got[i], want)
			if wrong++; wrong == 10 {
				t.Fatal("and more")
			}
		}
	}
}

// embeddings are the IPv6 forms of §6 that carry the IPv4 address a:
// IPv4-mapped, IPv4-compatible, NAT64 and 6to4.
func embeddings(a netip.Addr) []string {
	v4 := a.As4()
	var mapped, compat, nat64, sixToFour [16]byte
	mapped[10], mapped[11] = 0xff, 0xff
	copy(mapped[12:], v4[:])
	copy(compat[12:], v4[:])
	nat64[0], nat64[1], nat64[2], nat64[3] = 0x00, 0x64, 0xff, 0x9b
	copy(nat64[12:], v4[:])
	sixToFour[0], sixToFour[1] = 0x20, 0x02
	copy(sixToFour[2:6], v4[:])
	sixToFour[15] = 1
	var out []string
	for _, b := range [][16]byte{mapped, compat, nat64, sixToFour} {
		out = append(out, netip.AddrFrom16(b).String())
	}
	return out
}

// world answers the namespace as internal/networld does for a scenario:
// each lookup of a name takes the next answer of its line, cycling, if it
// is of the query's family (so the A and AAAA queries of one lookup take
// one answer between them); a request is answered by Host and target.
type world struct {
	mu      sync.Mutex
	dns     map[string][]netip.Addr
	next    map[string]int
	taken   map[string]int
	routes  map[string]string // "host target" -> body
	queries int
}

func (w *world) resolve(name string, fam netns.Family) []netip.Addr {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queries++
	line := w.dns[name]
	if len(line) == 0 {
		return nil
	}
	a := line[w.next[name]%len(line)]
	if a.Is4() != (fam == netns.IPv4) {
		return nil
	}
	w.next[name]++
	w.taken[name]++
	return []netip.Addr{a}
}

func (w *world) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	b, ok := w.routes[r.Host+" "+r.RequestURI]
	w.mu.Unlock()
	if !ok {
		http.NotFound(rw, r)
		return
	}
	fmt.Fprint(rw, b)
}

func TestOwnHTTPInTheNamespace(t *testing.T) {
	// The real resolver and HTTP client, in a network namespace where every
	// address is local: the connections the ops made, and where they were
	// aimed, as the harness records them.
	if err := netns.Supported(); err != nil {
		t.Skip(err)
	}
	py := python3(t)
	addrs := func(ss ...string) []netip.Addr {
		var out []netip.Addr
		for _, s := range ss {
			out = append(out, netip.MustParseAddr(s))
		}
		return out
	}
	w := &world{
		dns: map[string][]netip.Addr{
			"api.test":    addrs("203.0.113.7"),
			"rebind.test": addrs("203.0.113.8", "127.0.0.1"),
			"v6.test":     addrs("2606:4700::1111"),
			"mapped.test": addrs("::ffff:10.0.0.5"),
			"evil.test":   addrs("203.0.113.66"),
		},
		next: map[string]int{}, taken: map[string]int{},
		routes: map[string]string{
			"api.test /status":          "ok",
			"api.test /q?d=%2e":         "q",
			"api.test /f#x":             "fragment",
			"rebind.test /data":         "public-data",
			"v6.test /status":           "six",
			"::ffff:203.0.113.1 /":      "by-ip",
			"[2606:4700::2222] /status": "bracketed",
			"evil.test /status":         "stolen",
			"api.test /a b":             "unsendable",
		},
	}
	ops := [][]string{
		{"net_fetch", "api.test", "/status"},
		{"net_fetch", "api.test", "/missing"},
		{"net_fetch", "rebind.test", "/data"},
		{"net_fetch", "rebind.test", "/data"},
		{"net_fetch", "rebind.test", "/data"},
		{"net_fetch", "v6.test", "/status"},
		{"net_fetch", "mapped.test", "/status"},
		{"net_fetch", "evil.test", "/status"},
		{"net_fetch", "127.1", "/"},
		{"net_fetch", "::ffff:203.0.113.1", "/"},
		{"net_fetch", "[2606:4700::2222]", "/status"},
		{"net_fetch", "api.test", "/a b"},
		{"net_fetch", "api.test", "/q?d=%2e"},
		{"net_fetch", "api.test", "/f#x"},
	}
	j := job{Grant: grant{[]string{"api.test", "rebind.test", "v6.test", "mapped.test", "127.1",
		"::ffff:203.0.113.1", "[2606:4700::2222]"}, budgets(1000)}, Ops: ops}
	got, recs := driveInNamespace(t, py, j, netns.Network{Ports: []uint16{80}, Resolve: w.resolve, Handler: w})
	want := []string{"ok ok", "not_found", "ok public-data", "egress_internal", "ok public-data", "ok six",
		"egress_internal", "egress_denied", "egress_internal", "ok by-ip", "ok bracketed", "not_found", "ok q", "ok fragment"}
	if diff := cmp.Diff(want, got.Results); diff != "" {
		t.Errorf("results (-want +got)\n%s", diff)
	}
	// Ops are one at a time, so their connections come in their order; and
	// every connection carries a request: the ops refused made none.
	type conn struct{ Local, Host, Target string }
	var requests []conn
	conns := 0
	for _, r := range recs {
		if r.Method == "" {
			conns++
			continue
		}
		requests = append(requests, conn{r.Local.String(), r.Host, r.Target})
	}
	wantRequests := []conn{
		{"203.0.113.7:80", "api.test", "/status"},
		{"203.0.113.7:80", "api.test", "/missing"},
		{"203.0.113.8:80", "rebind.test", "/data"},
		{"203.0.113.8:80", "rebind.test", "/data"},
		{"[2606:4700::1111]:80", "v6.test", "/status"},
		{"203.0.113.1:80", "::ffff:203.0.113.1", "/"},
		{"[2606:4700::2222]:80", "[2606:4700::2222]", "/status"},
		{"203.0.113.7:80", "api.test", "/q?d=%2e"},
		{"203.0.113.7:80", "api.test", "/f#x"},
	}
	if diff := cmp.Diff(wantRequests, requests); diff != "" {
		t.Errorf("requests recorded in the namespace (-want +got)\n%s", diff)
	}
	if conns != len(wantRequests) {
		t.Errorf("%d connections for %d requests: a connection without a request", conns, len(wantRequests))
	}
	// One lookup per fetch that got past the grant, each taking one answer:
	// rebinding is seen, not skipped or doubled.
	wantTaken := map[string]int{"api.test": 5, "rebind.test": 3, "v6.test": 1, "mapped.test": 1}
	if diff := cmp.Diff(wantTaken, w.taken); diff != "" {
		t.Errorf("answers taken per name (-want +got)\n%s", diff)
	}
}

func TestOwnHTTPCampaignIsClean(t *testing.T) {
	// The done-when of the mode, in small: a campaign of the exec: door,
	// whose child runs in a namespace answered by each scenario's world,
	// finds nothing. Without namespaces the child refuses to start.
	if err := netns.Supported(); err != nil {
		t.Skip(err)
	}
	python3(t)
	py, err := filepath.Abs("sandbox.py")
	if err != nil {
		t.Fatal(err)
	}
	target, err := sut.Lookup("exec:python3 " + py + " --own-http")
	if err != nil {
		t.Fatal(err)
	}
	const checks = 300
	// An op's timeout far above what one takes: the campaign judges the
	// child's answers, and on a machine busy with -race and other tests a
	// large op has taken over the 2 s default.
	res, err := campaign.Run(context.Background(), campaign.Config{Seed: 1, Checks: checks, Workers: 2, Target: target, StopAtFirst: true, Timeout: childTimeout / 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Errorf("check %d: %s\n%s", f.Check, f.Invariant, f.Explanation())
	}
	if len(res.Findings) == 0 && res.Checks != checks {
		t.Errorf("%d checks made; want %d", res.Checks, checks)
	}
}

// driveInNamespace runs testdata/drive.py with py on j in a network
// namespace answered by n, with SBXFUZZ_NETNS=1 (the --own-http mode's
// condition), and returns what it printed and the connections n saw.
func driveInNamespace(t *testing.T, py string, j job, n netns.Network) (drove, []netns.Record) {
	t.Helper()
	arg, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	drivePy, err := filepath.Abs("testdata/drive.py")
	if err != nil {
		t.Fatal(err)
	}
	res, recs, err := netns.Run(netns.Command{
		Argv:    []string{py, drivePy, string(arg)},
		Env:     append(envWithout("SBXFUZZ_NETNS"), "SBXFUZZ_NETNS=1", "PYTHONDONTWRITEBYTECODE=1"),
		Timeout: childTimeout,
	}, n)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		t.Fatalf("drive.py: exit %d (timed out %v): %s%s", res.ExitCode, res.TimedOut, res.Stdout, res.Stderr)
	}
	var got drove
	if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
		t.Fatalf("drive.py printed %q: %v", res.Stdout, err)
	}
	return got, recs
}
