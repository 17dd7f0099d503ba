package proxysut

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// fakeServerEnv makes the test binary a fake MCP fetch server
// (fakeServer) of the mode it names.
const fakeServerEnv = "PROXYSUT_FAKE_SERVER"

// fakeOwnerEnv names the test process that started a fake server, so
// that fakeServers counts this run's only, not another test binary's
// running beside it on the machine.
const fakeOwnerEnv = "PROXYSUT_FAKE_OWNER"

// fakeServer is an MCP server over stdio whose one tool, fetch, takes a
// url and answers as mode says:
//
//	open   fetch it, whatever the host and wherever it resolves; a
//	       redirect is not followed
//	follow as open, but follow redirects naively: each Location is
//	       looked up and connected to by the server's HTTP client itself
//	guard  fetch it only for a host listed in --allow (comma-separated,
//	       byte for byte) whose one resolved address is not internal,
//	       from exactly that address, not following a redirect: a
//	       correct egress guard
//	deny   refuse, connecting nowhere
//	logs   as open, writing a log line on stdout before each answer
//	bare   connect to the host's address on port 443 and close, as a
//	       client whose TLS hello goes unanswered, then fail
//	exit   exit 3 at the call
//	hang   never answer the call
func fakeServer(mode string, args []string) int {
	var allow []string
	if len(args) == 2 && args[0] == "--allow" && args[1] != "" {
		allow = strings.Split(args[1], ",")
	}
	in, out := bufio.NewScanner(os.Stdin), json.NewEncoder(os.Stdout)
	in.Buffer(nil, 1<<20)
	cache := map[string]string{} // mode "cache": the pages fetched, by URL, kept for ever
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string
			Params struct {
				Arguments struct{ URL string }
			}
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]string{"name": "fake-fetch", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []map[string]any{{"name": "fetch", "inputSchema": map[string]any{"type": "object"}}}}
		case "tools/call":
			switch mode {
			case "exit":
				return 3
			case "hang":
				select {}
			}
			if mode == "logs" {
				fmt.Println("fetching", req.Params.Arguments.URL) // a log line on the protocol's stream
			}
			text, cached := cache[req.Params.Arguments.URL]
			var err error
			if !cached {
				text, err = fakeFetch(mode, allow, req.Params.Arguments.URL)
			}
			if err != nil {
				text = "Error: " + err.Error()
			} else if mode == "cache" {
				cache[req.Params.Arguments.URL] = text
			}
			// "plainguard" says its errors in a successful result, as
			// LangChain's WebBrowser returns an error's text.
			result = map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": err != nil && mode != "plainguard"}
		default:
			out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			continue
		}
		out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	return 0
}

// relayed holds the URLs the fake server was asked before: "relaylater"
// fetches a URL itself the first time, from its relay after.
var relayed = map[string]bool{}

// fakeFetch is the fake server's fetch of rawURL in mode.
func fakeFetch(mode string, allow []string, rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	host := u.Hostname()
	if mode == "pwd" { // says where it runs
		wd, err := os.Getwd()
		return "cwd " + wd, err
	}
	if mode == "relay" || mode == "relaylater" && relayed[rawURL] { // asks a service of its own for every page, as a reader API does
		host, rawURL = "relay.test", "http://relay.test/read"
	}
	relayed[rawURL] = true
	guard := mode == "guard" || mode == "plainguard" || mode == "twice"
	if mode == "deny" || guard && !slices.Contains(allow, hostOfURL(u)) {
		return "", fmt.Errorf("%s is not allowed", host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if mode == "follow" { // every hop looked up and dialled by the client
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return "", err
		}
		resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}).Do(req)
		return answerText(rawURL, resp, err)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "", err
	}
	if guard && spec.IsInternal(addrs[0]) {
		return "", fmt.Errorf("%s resolves to an internal address", host)
	}
	if mode == "twice" && u.Path == "/twice" { // looks the name up again, both answers checked, the last dialled
		again, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return "", err
		}
		if spec.IsInternal(again[0]) {
			return "", fmt.Errorf("%s resolves to an internal address", host)
		}
		addrs = again
	}
	if mode == "bare" {
		var d net.Dialer
		if c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(addrs[0], 443).String()); err == nil {
			c.Close()
		}
		return "", fmt.Errorf("https://%s: no TLS answer", host)
	}
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", netip.AddrPortFrom(addrs[0], 80).String())
	}
	// The transport alone: a redirect is not followed.
	transport := &http.Transport{DialContext: dial, DisableKeepAlives: true}
	if mode == "robots" { // asks the host what it may fetch first, as a polite crawler does
		robots := *u
		robots.Path, robots.RawQuery = "/robots.txt", ""
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, robots.String(), nil)
		if err != nil {
			return "", err
		}
		if resp, err := transport.RoundTrip(req); err == nil {
			rules, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(rules), "Disallow: /") {
				return "", fmt.Errorf("%s: robots.txt forbids it", rawURL)
			}
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := transport.RoundTrip(req)
	return answerText(rawURL, resp, err)
}

// answerText is what the fake server says of resp, its answer for
// rawURL: the body of a 200 or a 302 (a redirect's URL) in words of its
// own, else an error.
func answerText(rawURL string, resp *http.Response, err error) (string, error) {
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusFound {
		return "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return "Contents of " + rawURL + ":\n" + string(body), err
}

// hostOfURL is u's host as the grant lists it: an IPv6 literal in
// brackets, as the harness gives it.
func hostOfURL(u *url.URL) string {
	if strings.HasPrefix(u.Host, "[") {
		return u.Host
	}
	return u.Hostname()
}

// fakeServerProfile is the profile of the fake server: its fetch tool,
// the granted hosts after --allow.
const fakeServerProfile = `{"name": "fake-fetch", "mcp": {"tool": "fetch"}, "args": ["--allow", "{{range $i, $h := hosts}}{{if $i}},{{end}}{{$h}}{{end}}"]}`

// fakeServerCommand is the command of the fake MCP fetch server of mode:
// this test binary, told so by its environment. It skips the test where
// namespaces are unavailable.
func fakeServerCommand(t *testing.T, mode string) string {
	t.Helper()
	needNamespaces(t)
	t.Setenv(fakeServerEnv, mode)
	t.Setenv(fakeOwnerEnv, strconv.Itoa(os.Getpid()))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// fakeServerTarget is the door to the fake MCP fetch server of mode.
func fakeServerTarget(t *testing.T, mode string, op time.Duration) door.Target {
	t.Helper()
	exe := fakeServerCommand(t, mode)
	p, err := ParseProfile([]byte(fakeServerProfile))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ServerTarget(exe, "", p, Timeouts{Op: op})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestFetchServers: an MCP server's fetch tool is judged on what its
// namespace saw, whatever it answered in words. One that fetches
// whatever it is asked is caught connecting to an ungranted host and to
// an internal address; a correct guard passes the same scenarios, its
// allowed fetches ok with the world's body (not its own words around
// it), counted as let through; one that refuses all is stricter. One
// that asks for robots.txt before each page is judged as the open one:
// when the harness halts its fetch on the output budget, the request it
// made first is the fetch's, not the effect of a denial.
func TestFetchServers(t *testing.T) {
	scenarios := []struct{ name, src string }{
		{"allowed", "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s => ok \"hello\"\n"},
		{"missing", "grant net a.test\n\nnet_fetch a.test /s => not_found\n"},
		{"ungranted", "grant net a.test\nroute b.test /s hello\n\nnet_fetch b.test /s\n"},
		{"internal", "grant net a.test\ndns a.test 10.0.0.7\nroute a.test /s hello\n\nnet_fetch a.test /s\n"},
		{"rebound", "grant net a.test\ndns a.test 203.0.113.9 169.254.169.254\nroute a.test /s hello\n\nnet_fetch a.test /s\nnet_fetch a.test /s\n"},
		// The harness's max_output_bytes charge (SPEC §10's default, which
		// the door keeps) halts it, after the fetch: what the server asked
		// of the host is the fetch's, not a denial's.
		{"halted", "grant net a.test\nroute a.test /s " + strings.Repeat("x", 1<<20+1) + "\n\nnet_fetch a.test /s => max_output_bytes\n"},
	}
	open := map[string][]string{"ungranted": {"confinement", "verdict-matches-model"}, "internal": {"no-internal-egress", "verdict-matches-model"},
		"rebound": {"no-internal-egress", "verdict-matches-model"}}
	for _, tc := range []struct {
		mode            string
		want            map[string][]string // by scenario; nil: none
		passed, through int64               // of the 4 fetches the model allows, and of the 1 its allow-list refuses (not the 2 internal)
	}{
		{"open", open, 4, 1},
		{"robots", open, 4, 1},
		{"guard", nil, 4, 0},
		{"deny", nil, 0, 0},
	} {
		tg := fakeServerTarget(t, tc.mode, 0)
		var sum door.Tally
		for _, sc := range scenarios {
			fs, tally := checkOn(t, tg, sc.src, 0)
			if got := invariants(fs); !slices.Equal(got, tc.want[sc.name]) {
				t.Errorf("%s, %s: findings %q, want %q\n%v", tc.mode, sc.name, got, tc.want[sc.name], fs)
			}
			sum.Add(tally)
		}
		if sum.Bare != 0 {
			t.Errorf("%s: %d connections without a request counted, where every one sent its request", tc.mode, sum.Bare)
		}
		if sum.Passed != tc.passed || sum.Refused != 1 || sum.LetThrough != tc.through {
			t.Errorf("%s: let through %d fetches the model allows and %d of the %d its allow-list refuses, want %d and %d of 1",
				tc.mode, sum.Passed, sum.LetThrough, sum.Refused, tc.passed, tc.through)
		}
		// A refusal's words are kept with its stricter example, and for
		// the replay's mark.
		if said := sum.StricterSaid[door.ReasonRefusedAllowed]; tc.mode == "deny" && (said != "Error: a.test is not allowed" || sum.Said == 0) {
			t.Errorf("deny: the example refused in the words %q (%d words kept), want \"Error: a.test is not allowed\"", said, sum.Said)
		}
	}
}

// TestRelayingFetchServer: a server that fetches every page from a relay
// of its own (a reader API) connects to a host the grant does not list,
// confinement, and never to the op's host: stricter, counted as another
// host fetched instead, not as a refusal; when the model's answer then halts on the harness's
// output budget, the relay's connection is the fetch's effect, judged by
// confinement alone, not a denial's.
func TestRelayingFetchServer(t *testing.T) {
	src := "grant net a.test\nroute a.test /s " + strings.Repeat("x", 1<<20+1) + "\n\nnet_fetch a.test /s => max_output_bytes\n"
	fs, tally := checkOn(t, fakeServerTarget(t, "relay", 0), src, 0)
	if got := invariants(fs); !slices.Equal(got, []string{"confinement"}) || !strings.Contains(fs[0].Detail, "relay.test") {
		t.Errorf("findings %v, want confinement for relay.test only", fs)
	}
	if tally.Stricter[door.ReasonAnotherHost] != 1 || len(tally.Stricter) != 1 {
		t.Errorf("stricter %v, want the op counted another-host (the server fetched relay.test instead of a.test)", tally.Stricter)
	}
}

// TestRelayedLaterIsNoCache: a server that fetches a URL itself once and
// from a relay of its own after made a request, of another host: no
// answer from a cache, but another host fetched instead of the op's.
func TestRelayedLaterIsNoCache(t *testing.T) {
	src := "grant net a.test\nroute a.test /s hello\nroute relay.test /read relayed\n\nnet_fetch a.test /s => ok hello\nnet_fetch a.test /s\n"
	fs, tally := checkOn(t, fakeServerTarget(t, "relaylater", 0), src, 0)
	// (Its replay, on the same server, relays the first fetch too:
	// replay-deterministic, the server's own state.)
	if got := invariants(fs); tally.Cached != 0 || tally.Stricter[door.ReasonAnotherHost] != 1 || !slices.Contains(got, "confinement") {
		t.Errorf("counted %d cached, stricter %v, findings %v; want none cached, the second fetch another-host, confinement (relay.test) among the findings", tally.Cached, tally.Stricter, got)
	}
}

// TestCachingFetchServer: a server that answers a URL it fetched before
// from a cache of its own, asking the world nothing, is answered as the
// model and counted: not a refusal of what the model allows (stricter).
// From then on every sandbox gets a server of its own, so that a check's
// replay is not served from what its run filled: a fetch of an internal
// address is the run's finding, and the same in the replay.
func TestCachingFetchServer(t *testing.T) {
	tg := fakeServerTarget(t, "cache", 0)
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s => ok hello\nnet_fetch a.test /s => ok hello\n"
	fs, tally := checkOn(t, tg, src, 0)
	if len(fs) != 0 {
		t.Errorf("findings %v, want none", fs)
	}
	if tally.Cached != 1 || len(tally.Stricter) != 0 || tally.Passed != 1 {
		t.Errorf("counted %d cached, stricter %v, %d let through; want the run's second fetch cached, nothing stricter, the first let through", tally.Cached, tally.Stricter, tally.Passed)
	}
	internal := "grant net b.test\ndns b.test 127.0.0.1\nroute b.test /s hello\n\nnet_fetch b.test /s\n"
	fs, _ = checkOn(t, tg, internal, 0)
	if got := invariants(fs); !slices.Equal(got, []string{"no-internal-egress", "verdict-matches-model"}) {
		t.Errorf("a fetch of an internal address after the cache was seen: findings %v, want no-internal-egress and verdict-matches-model, no replay-deterministic", fs)
	}
}

// TestErrorsInWordsAreNotACache: a server whose tool says its errors in a
// successful result, refusing a URL it fetched before (its host now
// answers an internal address), reads as answering from a cache of its
// own, unless the profile's refusals tell such words: then it refused.
func TestErrorsInWordsAreNotACache(t *testing.T) {
	src := "grant net a.test\ndns a.test 203.0.113.9 10.0.0.7\nroute a.test /s hello\n\nnet_fetch a.test /s => ok hello\nnet_fetch a.test /s\n"
	for _, tc := range []struct {
		refusals string
		cached   int64
	}{
		{"", 1},
		{`, "refusals": ["^Error: "]`, 0},
	} {
		p, err := ParseProfile([]byte(strings.TrimSuffix(fakeServerProfile, "}") + tc.refusals + "}"))
		if err != nil {
			t.Fatal(err)
		}
		tg, err := ServerTarget(fakeServerCommand(t, "plainguard"), "", p, Timeouts{})
		if err != nil {
			t.Fatal(err)
		}
		fs, tally := checkOn(t, tg, src, 0)
		if len(fs) != 0 || tally.Cached != tc.cached {
			t.Errorf("refusals %q: findings %v, %d fetches counted as cached; want none and %d", tc.refusals, fs, tally.Cached, tc.cached)
		}
	}
}

// TestBrokenFetchServers: a server that exits at a call, and one that
// never answers it, are each a total finding at the op.
func TestBrokenFetchServers(t *testing.T) {
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	for _, tc := range []struct {
		mode, words string
		hang        bool
		timeout     time.Duration
	}{{"exit", "MCP server", false, 10 * time.Second}, {"hang", "did not return", true, 200 * time.Millisecond}} {
		fs, _ := checkOn(t, fakeServerTarget(t, tc.mode, tc.timeout), src, tc.timeout)
		if len(fs) == 0 || fs[0].Invariant.String() != "total" || fs[0].Step != 1 || fs[0].Hang != tc.hang || !strings.Contains(fs[0].Detail, tc.words) {
			t.Errorf("%s: findings %v; want total at step 1 saying %q, hang %v", tc.mode, fs, tc.words, tc.hang)
		}
	}
}

// TestDocumentedServerProfile: the fetch server's profile file
// docs/real-sandboxes.md shows is one the mcp: door takes, and renders
// the grant into the server's environment.
func TestDocumentedServerProfile(t *testing.T) {
	p, ok, err := LoadServerProfile(filepath.Join("..", "..", "docs", "examples", "mcp-fetch-profile.json"))
	if err != nil || !ok {
		t.Fatalf("ok %v, %v; want a fetch server's profile", ok, err)
	}
	l, err := p.render(launchVars{hosts: []string{"a.test", "[::1]"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ALLOWED_HOSTS=a.test,[::1]"}; !slices.Equal(l.env, want) || p.MCP.Tool != "fetch" || p.MCP.URL != "url" {
		t.Errorf("env %q, tool %+v; want %q, fetch(url)", l.env, p.MCP, want)
	}
}

// TestLoadServerProfile: a built-in fetch server's name and a file with
// an "mcp" field are fetch servers' profiles; a file server's built-in
// name, a proxy's, a file without the field and a file that does not read
// are not (the mcp: door reads them itself and says what is wrong); a
// fetch server's file that is wrong is an error.
func TestLoadServerProfile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		ok, err bool
	}{
		{"mcp-fetch-server", true, false},
		{"server-filesystem", false, false},
		{"tinyproxy", false, false},
		{"", false, false},
		{write("fetch.json", `{"name": "f", "mcp": {"tool": "fetch"}}`), true, false},
		{write("files.json", `{"name": "f", "read": {"tool": "cat"}}`), false, false},
		{write("broken.json", `{"name": "f", "mcp": `), false, false},
		{write("wrong.json", `{"name": "f", "mcp": {"tool": "fetch", "url": "a..b"}}`), true, true},
		{write("nameless.json", `{"mcp": {"tool": "fetch"}}`), true, true},
		{filepath.Join(dir, "missing.json"), false, false},
	} {
		_, ok, err := LoadServerProfile(tc.name)
		if ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("LoadServerProfile(%q): ok %v, error %v; want ok %v, an error %v", tc.name, ok, err, tc.ok, tc.err)
		}
	}
}

// TestHostlessServerServesEveryGrant: a server whose profile gives it no
// hosts is started once for grants of other hosts; one given its hosts is
// started for each list.
func TestHostlessServerServesEveryGrant(t *testing.T) {
	exe := fakeServerCommand(t, "open")
	for _, tc := range []struct {
		profile string
		shared  bool
	}{
		{`{"name": "hostless", "mcp": {"tool": "fetch"}}`, true},
		{fakeServerProfile, false},
	} {
		p, err := ParseProfile([]byte(tc.profile))
		if err != nil {
			t.Fatal(err)
		}
		a := &adapter{argv: []string{exe}, profile: p, id: identify(exe, "", p)}
		s, err := a.newSession()
		if err != nil {
			t.Fatal(err)
		}
		first, err := s.get([]string{"a.test"})
		if err != nil {
			t.Fatal(err)
		}
		s.release(first)
		second, err := s.get([]string{"b.test", "c.test"})
		if err != nil {
			t.Fatal(err)
		}
		s.release(second)
		if shared := first == second; shared != tc.shared {
			t.Errorf("%s: one server for both grants %v, want %v", p.Name, shared, tc.shared)
		}
		if n := len(fakeServers()); n == 0 {
			t.Fatalf("%s: no fake server found running: the count below proves nothing", p.Name)
		}
		if err := s.end(); err != nil {
			t.Errorf("%s: ending the session: %v", p.Name, err)
		}
		for deadline := time.Now().Add(time.Minute); len(fakeServers()) > 0 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond) // a bound for a broken test, not a measurement
		}
		if left := fakeServers(); len(left) > 0 {
			t.Errorf("%s: %d servers left after the session ended: %v", p.Name, len(left), left)
		}
	}
}

// fakeServers lists the live processes, other than this one, that are
// fake fetch servers this test process started: their environment holds
// fakeServerEnv, and fakeOwnerEnv naming this process.
func fakeServers() []string {
	var out []string
	self := fmt.Sprintf("/proc/%d/environ", os.Getpid())
	owner := "\x00" + fakeOwnerEnv + "=" + strconv.Itoa(os.Getpid()) + "\x00"
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, e := range envs {
		b, err := os.ReadFile(e)
		env := "\x00" + string(b)
		if e != self && err == nil && strings.Contains(env, "\x00"+fakeServerEnv+"=") && strings.Contains(env, owner) {
			out = append(out, e)
		}
	}
	return out
}

// TestRobotsRefusal: a fetch tool that reads robots.txt, finds the page
// forbidden and says so refused the op (stricter), though the world
// answered robots.txt; one that reads it and goes on is judged by the
// page.
func TestRobotsRefusal(t *testing.T) {
	tg := fakeServerTarget(t, "robots", 0)
	for _, tc := range []struct {
		rules    string
		stricter int64
	}{
		{"User-agent: *\\nDisallow: /", 1},
		{"User-agent: *\\nAllow: /", 0},
	} {
		src := "grant net a.test\nroute a.test /robots.txt \"" + tc.rules + "\"\nroute a.test /page hello\n\nnet_fetch a.test /page\n"
		fs, tally := checkOn(t, tg, src, 0)
		if len(fs) > 0 || countsTotal(tally.Stricter) != tc.stricter {
			t.Errorf("robots.txt %q: findings %v, stricter %v; want none, and %d refused", tc.rules, fs, tally.Stricter, tc.stricter)
		}
	}
}

// TestConnectedWithoutARequest: a server that connects for a fetch but
// sends no request (its TLS hello unanswered) and then fails has let the
// fetch out: the connection is the op's one fetch, judged where it went
// (an internal address is no-internal-egress), and an allowed fetch it
// made is let through, not a stricter refusal answered by the model with
// a second fetch.
func TestConnectedWithoutARequest(t *testing.T) {
	tg := fakeServerTarget(t, "bare", 0)
	fs, tally := checkOn(t, tg, "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n", 0)
	if len(fs) > 0 || tally.Passed != 1 || len(tally.Stricter) > 0 || tally.Bare != 1 {
		t.Errorf("allowed: findings %v, %d let through, stricter %v, %d bare; want none, 1, none, 1 (a replay says so)", fs, tally.Passed, tally.Stricter, tally.Bare)
	}
	fs, _ = checkOn(t, tg, "grant net a.test\ndns a.test 10.0.0.7\n\nnet_fetch a.test /s\n", 0)
	if got := invariants(fs); !slices.Equal(got, []string{"no-internal-egress"}) {
		t.Errorf("internal: findings %q, want no-internal-egress", got)
	}
}

// TestServerLogLinesCounted: the lines a fetch server writes on stdout
// that are not JSON-RPC are skipped and counted in the session's tally,
// as the file door counts them.
func TestServerLogLinesCounted(t *testing.T) {
	src := "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\nnet_fetch a.test /t\n"
	tg := fakeServerTarget(t, "logs", 0)
	fs, tally := checkOn(t, tg, src, 0)
	if len(fs) > 0 || tally.SkippedLines != 4 { // two fetches, in the run and in its replay
		t.Errorf("findings %v, %d lines skipped; want none, 4", fs, tally.SkippedLines)
	}
	// Read after the session ended, its servers stopped, the count stays.
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f, end, read, err := tg.StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oracle.Check(f, tg.Narrow(sc).Scenario, nil, oracle.Options{}); err != nil {
		t.Fatal(err)
	}
	end()
	if n := read().SkippedLines; n != 4 {
		t.Errorf("after the session ended: %d lines skipped, want 4", n)
	}
}

// TestServerRunsWhereTheHarnessRuns: a fetch server runs in the
// harness's working directory, as a proxy does, so a command relative to
// it starts.
func TestServerRunsWhereTheHarnessRuns(t *testing.T) {
	exe := fakeServerCommand(t, "open")
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "fake")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	p, err := ParseProfile([]byte(fakeServerProfile))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ServerTarget("./fake", "", p, Timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	if fs, tally := checkOn(t, tg, "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n", 0); len(fs) > 0 || tally.Passed != 1 {
		t.Errorf("findings %v, %d let through; want none, 1", fs, tally.Passed)
	}
}

// TestServerCwd: a fetch server runs in the harness's working directory,
// unless its profile says cwd: then in its own directory, with its HOME.
func TestServerCwd(t *testing.T) {
	exe := fakeServerCommand(t, "pwd")
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []bool{false, true} {
		text := `{"name": "pwd", "mcp": {"tool": "fetch"}}`
		if cwd {
			text = `{"name": "pwd", "mcp": {"tool": "fetch"}, "cwd": true}`
		}
		p, err := ParseProfile([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		px, err := startServer([]string{exe}, p, nil, t.TempDir(), Timeouts{}, "")
		if err != nil {
			t.Fatal(err)
		}
		res, err := px.srv.Fetch("http://a.test/")
		px.close()
		want := "cwd " + here
		if cwd {
			want = "cwd " + px.dir
		}
		if err != nil || res.Text != want {
			t.Errorf("cwd %v: %q, %v; want %q", cwd, res.Text, err, want)
		}
	}
}

// TestLookupsOffTheModelsLine: a guard that looks a name up twice for one
// fetch, each answer checked, moves the name's dns line ahead of the
// model's one lookup a fetch: a later fetch it lets through on a public
// answer, where the model's lookup answers 127.0.0.1, is answered as the
// model, counted, and no finding; what it connected to is still judged.
func TestLookupsOffTheModelsLine(t *testing.T) {
	const src = "grant net a.test\ndns a.test 203.0.113.7 203.0.113.7 127.0.0.1\nroute a.test /twice hello\nroute a.test /s hello\n\n" +
		"net_fetch a.test /twice\nnet_fetch a.test /s\nnet_fetch a.test /s\n"
	fs, tally := checkOn(t, fakeServerTarget(t, "twice", 0), src, 0)
	if n := tally.LineMoved; n != 1 || len(fs) > 0 {
		t.Errorf("%d fetches counted off the model's line, findings %v; want 1 and none", n, fs)
	}
}

// countsTotal is the sum of counts.
func countsTotal(counts map[string]int64) int64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}
