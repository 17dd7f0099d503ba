package proxysut

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/networld"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
)

// worldPort is the one port the world answers on: a fetch is of port 80
// (SPEC §14), and a proxy that connects elsewhere is refused by the
// namespace, which it reports as its own failure.
const worldPort = 80

// proxyWorldPorts are the ports the world listens on in a proxy's
// namespace, every address: a proxy's listen address must be on another.
var proxyWorldPorts = []uint16{worldPort}

// maxAnswerBytes bounds the body of an answer read from a proxy.
const maxAnswerBytes = 64 << 20

// proxy is one proxy running in a network namespace of its own, for one
// list of granted hosts, answered by the world its binding is given.
type proxy struct {
	key    string // the granted hosts, sorted, one a line
	sb     *netns.Sandbox
	bind   *networld.Binding
	srv    *mcp.Server // an MCP server's client (Profile.MCP); nil for a proxy
	listen netip.AddrPort
	mode   string
	// headers are the lines of Profile.Headers, sent with every request
	// to the proxy (proxyHeaders).
	headers string
	dir     string          // its own directory: hosts file, config file
	tmp     string          // its {{tmp}}, removed with dir; "" for none
	exited  <-chan struct{} // closed when the command has ended
	result  netns.Result    // how it ended, once exited is closed
	ops     int             // fetches sent to it
	failed  atomic.Bool     // it hung, crashed or could not be reached: never reused

	// world is the world its binding answers from: the sandbox that
	// runs an op binds its own (bindTo); the session unbinds it when no
	// sandbox holds the proxy, maybe from the watchdog's goroutine.
	worldMu sync.Mutex
	world   *refworld.World

	// answers are the DNS answers the worlds it served gave (staleFetch),
	// fetched the URLs the world answered a fetch server's request for
	// (fetchedBefore).
	answersMu sync.Mutex
	answers   map[dnsAnswer]bool
	fetched   map[string]bool
}

// bindTo makes w the world the proxy's namespace answers from, opening
// its journal, unless it is already.
func (px *proxy) bindTo(w *refworld.World) {
	px.worldMu.Lock()
	defer px.worldMu.Unlock()
	if px.world != w {
		px.bind.Use(w)
		px.world = w
	}
}

// unbind answers the proxy's namespace from no world.
func (px *proxy) unbind() {
	px.worldMu.Lock()
	defer px.worldMu.Unlock()
	px.bind.Use(nil)
	px.world = nil
}

// start starts what p describes, for hosts, in a new directory under
// parent: an MCP server (Profile.MCP), else a proxy.
func start(argv []string, p Profile, hosts []string, parent string, t Timeouts, note string) (*proxy, error) {
	if p.MCP != nil {
		return startServer(argv, p, hosts, parent, t, note)
	}
	return startProxy(argv, p, hosts, parent, t.start(), note)
}

// startProxy starts argv, with p's arguments, for hosts, in a new
// directory under parent, and waits until it accepts connections on its
// listen address, at most start. A proxy that does not get there is an
// error naming the command line run, followed by note (which profile
// rendered it).
func startProxy(argv []string, p Profile, hosts []string, parent string, start time.Duration, note string) (*proxy, error) {
	dir, err := os.MkdirTemp(parent, "proxy-")
	if err != nil {
		return nil, err
	}
	l, err := prepareDir(dir, p, hosts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	bind := networld.New()
	bind.Ignore(p.ignored)
	cmd := netns.Command{Argv: append(slices.Clone(argv), l.args...), Env: environ(l.env), Timeout: -1}
	sb, err := netns.Start(cmd, bind.Network(proxyWorldPorts...))
	if err != nil {
		removeDirs(dir, l.tmp)
		return nil, fmt.Errorf("starting the proxy: %w", err)
	}
	bind.Attach(sb.TakeRecords)
	exited := make(chan struct{})
	px := &proxy{key: hostsKey(hosts), sb: sb, bind: bind, listen: netip.MustParseAddrPort(p.Listen), mode: p.Mode, headers: p.proxyHeaders(), dir: dir, tmp: l.tmp, exited: exited}
	go func() {
		px.result = sb.Wait()
		close(exited)
	}()
	if err := px.waitReady(start); err != nil {
		px.close()
		return nil, fmt.Errorf("%w (ran: %s; %s)%s", err, finding.CommandLine(cmd.Argv), note, renderedFor(px, hosts))
	}
	return px, nil
}

// renderedFor names, for a proxy that exited before it listened, the
// hosts its configuration was rendered for: a proxy that refuses to start
// on a host it cannot hold ("a.test." with its trailing dot, an address
// where it takes names) looks like a crash of the proxy, when the profile
// is what wrote it.
func renderedFor(px *proxy, hosts []string) string {
	select {
	case <-px.exited:
	default:
		return ""
	}
	if len(hosts) == 0 {
		return ""
	}
	const most = 8
	shown := hosts[:min(len(hosts), most)]
	more := ""
	if len(hosts) > most {
		more = fmt.Sprintf(" and %d more", len(hosts)-most)
	}
	return fmt.Sprintf("; its configuration was rendered for the hosts %s%s: if it refused one of them, a template can write them as it takes them ({{trim_dot .}} drops a final dot, which {{canonical .}} keeps; {{unbracket .}} an IPv6 literal's brackets; {{range hosts_lower}} lists them in lower case, each once, for a list that ignores case) or leave out what it cannot hold ({{with canonical .}}, {{if matches \"^[a-z0-9.-]+$\" .}})", quoteAll(shown), more)
}

// quoteAll is ss quoted and joined by ", ".
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// tmpPrefix starts the name of a proxy's {{tmp}} directory (netns.TempDir).
const tmpPrefix = "sbxfuzz-tmp-"

// RemoveTempDirs removes the {{tmp}} directories of this process's
// proxies and servers that are still there: a campaign that did not wait
// for a sandbox to stop (one given up on, a browser slow to die when the
// run's time ran out) ends before its directory is removed. It is for a
// process that runs one campaign at a time.
func RemoveTempDirs() { netns.RemoveOwnTempDirs(tmpPrefix) }

// prepareDir writes the hosts file, the config file if p has one and its
// other files in dir, and renders p's launch there.
func prepareDir(dir string, p Profile, hosts []string) (l launch, err error) {
	v := launchVars{listen: p.Listen, dir: dir, hostsFile: filepath.Join(dir, "hosts.txt"), hosts: hosts}
	if p.Config != nil {
		v.config = filepath.Join(dir, filepath.FromSlash(p.Config.File))
	}
	if p.usesTmp() {
		// Short, in the system's temporary directory: a program that makes
		// a Unix socket in TMPDIR (Chromium) passes Linux's 108 bytes
		// under dir. It is the harness's alone (mode 0700), and one a
		// killed run left is swept by the next.
		if v.tmp, err = netns.TempDir(tmpPrefix); err != nil {
			return launch{}, err
		}
		defer func() {
			if err != nil {
				os.RemoveAll(v.tmp)
			}
		}()
	}
	l, err = p.render(v)
	if err != nil {
		return launch{}, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	l.tmp = v.tmp
	text := strings.Join(hosts, "\n")
	if text != "" {
		text += "\n"
	}
	if err := os.WriteFile(v.hostsFile, []byte(text), 0o600); err != nil {
		return launch{}, err
	}
	if p.Config != nil {
		if err := writeIn(v.config, l.config); err != nil {
			return launch{}, err
		}
	}
	for i, f := range p.Files {
		if err := writeIn(filepath.Join(dir, filepath.FromSlash(f.File)), l.files[i]); err != nil {
			return launch{}, err
		}
	}
	return l, nil
}

// writeIn writes text to file, making its directory first.
func writeIn(file, text string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(text), 0o600)
}

// environ is the harness's environment with extra ("K=V") set over it:
// the proxy inherits the harness's (a defect switch, a PATH), and the
// profile's wins.
func environ(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(extra, func(e string) bool { return strings.HasPrefix(e, k+"=") }) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// hostsKey is what tells two grants' proxies apart: their hosts, sorted,
// repeats dropped.
func hostsKey(hosts []string) string {
	h := slices.Clone(hosts)
	slices.Sort(h)
	return strings.Join(slices.Compact(h), "\n")
}

// elsewhereGrace is how long a proxy may listen only on addresses it was
// not told to before the door gives up on it, when its start may take
// three times as long or more (--start-timeout's default): long past any
// start. A shorter start is waited for whole. A test shortens it.
var elsewhereGrace = 10 * time.Second

// waitReady waits until the proxy accepts a connection on its listen
// address, at most start; it fails at once if the proxy exits, and after
// elsewhereGrace if it listens only elsewhere (a profile that does not
// tell it where), saying where.
func (px *proxy) waitReady(start time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), start)
	defer cancel()
	var grace <-chan time.Time // nil: never
	if start >= 3*elsewhereGrace {
		grace = time.After(elsewhereGrace)
	}
	graceOver := false // from then on, each pause looks where it listens: a slow proxy may listen elsewhere later
	pause := time.Millisecond
	for {
		c, err := px.sb.Dial(ctx, "tcp", px.listen.String())
		if err == nil {
			c.Close()
			return nil
		}
		if graceOver {
			if where := px.listensElsewhere(); where != "" {
				return fmt.Errorf("the proxy did not listen on %s within %v%s", px.listen, elsewhereGrace, where)
			}
		}
		select {
		case <-px.exited:
			return fmt.Errorf("the proxy exited with status %d before it listened on %s%s", px.result.ExitCode, px.listen, stderrTail(px.result.Stderr))
		case <-ctx.Done():
			return door.Timeout(fmt.Errorf("the proxy did not listen on %s within %v (--start-timeout): %v%s", px.listen, start, err, px.listensElsewhere()))
		case <-grace:
			graceOver = true
		case <-time.After(pause):
		}
		pause = min(pause+pause/4, 20*time.Millisecond)
	}
}

// listensElsewhere says where in its namespace the proxy listens, but for
// the world's own port, or "" when nowhere.
func (px *proxy) listensElsewhere() string {
	select {
	case <-px.exited: // its process, and its namespace's /proc/PID, are gone
		return ""
	default:
	}
	all, err := px.sb.Listening()
	if err != nil {
		return ""
	}
	var where []string
	for _, ap := range all {
		if ap.Port() != worldPort {
			where = append(where, ap.String())
		}
	}
	if len(where) == 0 {
		return ""
	}
	return "; it listens on " + strings.Join(where, ", ") + " instead: does its profile tell it where ({{listen}})?"
}

// stderrTail is the line of a proxy's stderr that says why it failed,
// for an error: the last that reads as an error's words (a runtime ends
// with lines that say nothing of it: a stack trace, Node's version),
// else the last line.
func stderrTail(s string) string {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	last := lines[len(lines)-1]
	if last == "" {
		return ""
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); errorWords(l) {
			return ": " + l
		}
	}
	return ": " + last
}

// errorWords reports whether a line of stderr reads as an error's words,
// not a frame of a stack trace.
func errorWords(l string) bool {
	if strings.HasPrefix(l, "at ") || strings.HasPrefix(l, "File ") {
		return false // a frame of Node's or Python's trace
	}
	for _, w := range []string{"Error", "error:", "Exception", "panic:", "fatal", "FATAL"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// probeWait is how long keepsOpen waits on the connection it made: far
// longer than the kernel takes, once it has closed the connections of a
// process that exits, to close its listening socket.
const probeWait = 20 * time.Millisecond

// keepsOpen reports whether the proxy takes a connection and keeps it
// open for probeWait, sending nothing or something: one that lives does.
// A connection taken is not enough: the kernel closes an exiting
// process's sockets one by one, the connections it held before its
// listening socket, and resets what that socket had taken meanwhile.
func (px *proxy) keepsOpen(ctx context.Context) bool {
	probe, err := px.sb.Dial(ctx, "tcp", px.listen.String())
	if err != nil {
		return false
	}
	defer probe.Close()
	probe.SetReadDeadline(time.Now().Add(probeWait))
	_, err = probe.Read(make([]byte, 1))
	var ne net.Error
	return err == nil || errors.As(err, &ne) && ne.Timeout()
}

// exitedWithin reports whether the proxy has exited, waiting at most d.
func (px *proxy) exitedWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-px.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitError says how the proxy ended, once it has.
func (px *proxy) exitError() error {
	return fmt.Errorf("the proxy exited with status %d%s", px.result.ExitCode, stderrTail(px.result.Stderr))
}

// skippedLines is how many lines of its stdout an MCP server skipped
// (not JSON: logs); 0 for a proxy.
func (px *proxy) skippedLines() int64 {
	if px.srv == nil {
		return 0
	}
	return px.srv.SkippedLines()
}

// close stops the proxy and everything it started, and removes its
// directories.
func (px *proxy) close() {
	if px.srv != nil {
		px.srv.Close() // which closes its namespace
	} else {
		px.sb.Close()
	}
	removeDirs(px.dir, px.tmp)
}

// removeDirs removes a proxy's directory and its {{tmp}}, if it has one.
func removeDirs(dir, tmp string) {
	os.RemoveAll(dir)
	if tmp != "" {
		os.RemoveAll(tmp)
	}
}

// answer is what a proxy answered to a fetch.
type answer struct {
	status       int
	world        bool // the answer carries networld.Header: the world's, relayed
	body         string
	closed       bool // the proxy closed the connection without an answer
	tunnelStatus int  // in connect mode, the status of the CONNECT that opened the tunnel
}

// proxyWords are the words of an answer a proxy made itself (a refusal,
// not the world's answer relayed): its status, and its body's title or
// first words, tags taken out, for the replay and the stricter examples
// to say why it refused; "" for the world's answer, or none. A page that
// holds a date or a request id in those words says it differently each
// run: the title, where a page has one, seldom does.
func proxyWords(a answer) string {
	switch {
	case a.closed && a.tunnelStatus != 0:
		// A proxy that inspects TLS answers every CONNECT and waits for
		// a TLS hello, not the request the door sends; another refuses
		// only once the tunnel is open.
		return fmt.Sprintf("%d %s to CONNECT, then closed at the request in the tunnel (a refusal in it, or a wait for TLS: try \"mode\": \"absolute\")",
			a.tunnelStatus, http.StatusText(a.tunnelStatus))
	case a.closed:
		return "closed the connection without an answer"
	case a.world || a.status == 0:
		return ""
	}
	words := strconv.Itoa(a.status)
	if text := http.StatusText(a.status); text != "" {
		words += " " + text
	}
	body := a.body
	if m := htmlTitle.FindStringSubmatch(body); m != nil {
		body = m[1]
	}
	body = strings.Join(strings.Fields(htmlTag.ReplaceAllString(body, " ")), " ")
	if len(body) > maxProxyWords {
		body = strings.ToValidUTF8(body[:maxProxyWords], "") + "…"
	}
	if body != "" {
		words += ": " + body
	}
	return words
}

// maxProxyWords bounds the body's words proxyWords keeps.
const maxProxyWords = 160

// htmlTitle matches an HTML page's title, in any case.
var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// htmlTag matches an HTML tag, a comment, or a style or script block with
// what it holds, in a proxy's answer.
var htmlTag = regexp.MustCompile(`(?i)<style[\s\S]*?</style>|<script[\s\S]*?</script>|<!--[\s\S]*?-->|<[^>]*>`)

// maxHeadBytes bounds the status line and headers of a proxy's answer
// that the door reads: one that never ends its headers is a malformed
// answer, not the harness's memory spent until --timeout.
const maxHeadBytes = 1 << 20

// errLongHead is an answer whose head passed maxHeadBytes.
var errLongHead = fmt.Errorf("a status line and headers of more than %d bytes", maxHeadBytes)

// capped reads from r, failing with errLongHead once left bytes are read:
// exchange sets left to bound an answer's head, and lifts it for the body.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errLongHead
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// errNoAnswer is a fetch the proxy did not answer in time.
var errNoAnswer = errors.New("no answer in time")

// fetch asks the proxy for http://host/path over conn, a connection to
// it, as its mode says, and reads its answer until deadline.
func (px *proxy) fetch(conn net.Conn, host, path string, deadline time.Time) (answer, error) {
	conn.SetDeadline(deadline)
	cr := &capped{r: conn}
	br := bufio.NewReader(cr)
	h := urlHost(host)
	if px.mode == ModeConnect {
		a, err := exchange(conn, cr, br, "CONNECT "+h+":80 HTTP/1.1\r\nHost: "+h+":80\r\n"+px.headers+"\r\n", http.MethodConnect)
		if err != nil || a.closed || a.status/100 != 2 || a.world {
			return a, err
		}
		tunnelStatus := a.status
		a, err = exchange(conn, cr, br, "GET "+path+" HTTP/1.1\r\nHost: "+h+"\r\nConnection: close\r\n\r\n", http.MethodGet)
		if a.closed {
			a.tunnelStatus = tunnelStatus
		}
		return a, err
	}
	return exchange(conn, cr, br, "GET http://"+h+path+" HTTP/1.1\r\nHost: "+h+"\r\n"+px.headers+"Connection: close\r\n\r\n", http.MethodGet)
}

// exchange writes req on conn and reads the answer to it from br. It
// never follows a redirect, nor parses a Location: a 302 is the answer
// (the world's redirect route, or the proxy's own refusal), and whatever
// a proxy requested for it is judged from its namespace.
func exchange(conn net.Conn, cr *capped, br *bufio.Reader, req, method string) (answer, error) {
	if _, err := io.WriteString(conn, req); err != nil {
		if closedByPeer(err) {
			return answer{closed: true}, nil
		}
		return answer{}, readError(err)
	}
	cr.left = maxHeadBytes
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	cr.left = math.MaxInt64 // the head is in: the body has a bound of its own, below
	if err != nil {
		if closedByPeer(err) {
			return answer{closed: true}, nil
		}
		return answer{}, readError(err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, world: resp.Header.Get(networld.Header) == "1"}
	if method == http.MethodConnect && a.status/100 == 2 {
		return a, nil // the tunnel: what follows is the world's
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	switch {
	case err != nil && !a.world:
		return a, nil // a refusal whose body broke off is a refusal all the same
	case err != nil:
		return answer{}, fmt.Errorf("the world's answer broke off: %w", readError(err))
	case len(body) > maxAnswerBytes:
		return answer{}, fmt.Errorf("an answer of more than %d bytes", maxAnswerBytes)
	}
	a.body = string(body)
	return a, nil
}

// closedByPeer reports whether err is the proxy closing or resetting the
// connection, before any answer: its refusal.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// readError is err in a fetch's words: errNoAnswer for a deadline.
func readError(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errNoAnswer
	}
	return fmt.Errorf("a malformed answer: %w", err)
}

// urlHost is host as a URL's authority carries it: an IPv6 literal in
// brackets.
func urlHost(host string) string {
	if door.IsIPv6Literal(host) && !strings.HasPrefix(host, "[") {
		return "[" + host + "]"
	}
	return host
}
