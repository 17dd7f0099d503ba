package netns

import (
	"bufio"
	"context"
	"errors"
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

	"github.com/google/go-cmp/cmp"
)

// clientEnv makes the test binary the command run in the namespace: a
// client that runs the steps of its value (see client).
const clientEnv = "NETNS_TEST_CLIENT"

func TestMain(m *testing.M) {
	if steps, ok := os.LookupEnv(clientEnv); ok {
		os.Exit(client(steps))
	}
	os.Exit(m.Run())
}

// client runs steps separated by ";", printing one line each:
//
//	lookup NAME ip4|ip6|ip PATH   resolve NAME, GET PATH from its first address, Host NAME
//	lookupat SERVER NAME PATH     the same, asking the DNS server at SERVER:53, over IPv4
//	dial6 ADDR PATH               GET PATH from ADDR:80 over an IPv6 socket (ADDR may be IPv4-mapped)
//	connect ADDR HOST:PORT        send CONNECT HOST:PORT to ADDR:80
//	touch ADDR:PORT               connect to ADDR:PORT and close at once, sending nothing
//	orphan MARKER                 start `sleep MARKER` in a session of its own, left running
//	shortorphan                   leave an orphan that exits at once, for the init to reap
//	listen ADDR:PORT              serve on ADDR:PORT: say "pid P ppid Q", then echo each line
//	pids                          print "pid P ppid Q", the command's in the namespace
//	exit N                        exit with status N
//	echoin                        copy stdin to stdout until stdin ends
//	closeout                      close stdout
//	stderr WORD                   write WORD to stderr
//	hold N ADDR:PORT              open N connections to ADDR:PORT and keep them, sending nothing
//	idle ADDR:PORT                connect to ADDR:PORT, send nothing, and wait for the other end to close
//	hang                          block forever
func client(steps string) int {
	for _, step := range strings.Split(steps, ";") {
		f := strings.Fields(step)
		out, err := runStep(f)
		if err != nil {
			fmt.Printf("%s: %v\n", step, err)
			return 1
		}
		fmt.Println(out)
	}
	return 0
}

func runStep(f []string) (string, error) {
	switch f[0] {
	case "lookup":
		addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), f[2], f[1])
		if err != nil {
			return "", err
		}
		c, err := net.Dial("tcp", netip.AddrPortFrom(addrs[0], 80).String())
		if err != nil {
			return "", err
		}
		return get(c, f[1], f[3])
	case "lookupat":
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, net.JoinHostPort(f[1], "53"))
		}}
		addrs, err := r.LookupNetIP(context.Background(), "ip4", f[2])
		if err != nil {
			return "", err
		}
		c, err := net.Dial("tcp", netip.AddrPortFrom(addrs[0], 80).String())
		if err != nil {
			return "", err
		}
		return get(c, f[2], f[3])
	case "dial6":
		c, err := dial6(netip.MustParseAddr(f[1]))
		if err != nil {
			return "", err
		}
		return get(c, f[1], f[2])
	case "connect":
		c, err := net.Dial("tcp", netip.AddrPortFrom(netip.MustParseAddr(f[1]), 80).String())
		if err != nil {
			return "", err
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", f[2], f[2])
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return "", err
		}
		return resp.Status, nil
	case "touch":
		c, err := net.Dial("tcp", f[1])
		if err != nil {
			return "", err
		}
		return "touched", c.Close()
	case "orphan":
		cmd := exec.Command("sleep", f[1])
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		return "started", cmd.Start()
	case "shortorphan":
		return "left", exec.Command("sh", "-c", "sleep 0.01 &").Run()
	case "listen":
		l, err := net.Listen("tcp", f[1])
		if err != nil {
			return "", err
		}
		go echoEach(l)
		return "listening", nil
	case "pids":
		return fmt.Sprintf("pid %d ppid %d", os.Getpid(), os.Getppid()), nil
	case "echoin":
		_, err := io.Copy(os.Stdout, os.Stdin)
		return "copied", err
	case "closeout":
		return "", os.Stdout.Close()
	case "stderr":
		_, err := fmt.Fprintln(os.Stderr, f[1])
		return "said", err
	case "shm":
		return "shm", os.WriteFile(filepath.Join("/dev/shm", f[1]), []byte("x"), 0o600)
	case "exit":
		code, _ := strconv.Atoi(f[1])
		os.Exit(code)
	case "hold":
		n, _ := strconv.Atoi(f[1])
		for range n {
			c, err := net.Dial("tcp", f[2])
			if err != nil {
				return "", err
			}
			held = append(held, c)
		}
		return "held " + f[1], nil
	case "idle":
		return idle(f[1])
	case "hang":
		select {}
	}
	return "", fmt.Errorf("no step %q", f[0])
}

// held are the connections hold keeps open until the command exits.
var held []net.Conn

// idle connects to addr, sends nothing, and waits, up to a minute, for
// the other end to close the connection.
func idle(addr string) (string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		return "", fmt.Errorf("read %v; want the listener to close the connection", err)
	}
	return "closed by the listener", nil
}

// echoEach serves every connection l accepts: it says who serves it, then
// echoes each line.
func echoEach(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			fmt.Fprintf(c, "pid %d ppid %d\n", os.Getpid(), os.Getppid())
			io.Copy(c, c)
		}()
	}
}

// dial6 connects to addr port 80 from an AF_INET6 socket, as a client
// that spells an IPv4 address IPv4-mapped does (Go's Dial would refuse).
func dial6(addr netip.Addr) (net.Conn, error) {
	fd, err := syscall.Socket(syscall.AF_INET6, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "dial6")
	defer f.Close()
	if err := syscall.Connect(fd, &syscall.SockaddrInet6{Port: 80, Addr: addr.As16()}); err != nil {
		return nil, err
	}
	return net.FileConn(f)
}

func get(c net.Conn, host, path string) (string, error) {
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(resp.Body)
	return resp.Status + " " + string(body), err
}

// requireNamespaces skips the test, with the reason, where this machine
// cannot make the namespaces.
func requireNamespaces(t *testing.T) {
	t.Helper()
	if err := Supported(); err != nil {
		t.Skip(err)
	}
}

// runClient runs the test binary as a client of steps in a namespace
// answered by n.
func runClient(t *testing.T, steps string, n Network) (Result, []Record) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, recs, err := Run(Command{
		Argv:    []string{self},
		Env:     append(os.Environ(), clientEnv+"="+steps),
		Timeout: 2 * time.Minute,
	}, n)
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 {
		t.Fatalf("client exited %d: %s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	return r, recs
}

// echoAddr answers every request with the address it was aimed at.
var echoAddr = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprint(w, LocalAddr(r))
})

func table(m map[string][]string) func(string, Family) []netip.Addr {
	return func(name string, fam Family) []netip.Addr {
		var out []netip.Addr
		for _, s := range m[name+"/"+strconv.Itoa(int(fam))] {
			out = append(out, netip.MustParseAddr(s))
		}
		return out
	}
}

// requests are the records of requests, in order.
func requests(recs []Record) []Record {
	var out []Record
	for _, r := range recs {
		if r.Method != "" {
			out = append(out, r)
		}
	}
	return out
}

var ap = netip.MustParseAddrPort

func TestConnectionsRecordTheAddressAimedAt(t *testing.T) {
	requireNamespaces(t)
	n := Network{
		Ports: []uint16{80, 443},
		Resolve: table(map[string][]string{
			"a.test/4":      {"203.0.113.7"},
			"a.test/6":      {"2001:db8::7"},
			"mapped.test/6": {"::ffff:10.1.2.3"},
		}),
		Handler: echoAddr,
	}
	steps := "lookup a.test ip4 /four; lookup a.test ip6 /six?q=1; lookup mapped.test ip /mapped; dial6 ::ffff:192.168.1.1 /raw; connect 198.51.100.1 b.test:443; lookupat 192.0.2.53 a.test /via"
	r, recs := runClient(t, steps, n)
	want := []Record{
		{Local: ap("203.0.113.7:80"), Method: "GET", Host: "a.test", Target: "/four"},
		{Local: ap("[2001:db8::7]:80"), Method: "GET", Host: "a.test", Target: "/six?q=1"},
		{Local: ap("10.1.2.3:80"), Method: "GET", Host: "mapped.test", Target: "/mapped"},
		{Local: ap("192.168.1.1:80"), Method: "GET", Host: "::ffff:192.168.1.1", Target: "/raw"},
		{Local: ap("198.51.100.1:80"), Method: "CONNECT", Host: "b.test:443", Target: "b.test:443"},
		{Local: ap("203.0.113.7:80"), Method: "GET", Host: "a.test", Target: "/via"}, // any nameserver is ours
	}
	got := requests(recs)
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b }), ignoreConn); diff != "" {
		t.Errorf("requests (-want +got)\n%s\nstdout:\n%s", diff, r.Stdout)
	}
	if !strings.Contains(r.Stdout, "200 OK 10.1.2.3:80") {
		t.Errorf("the handler was not answered the unmapped address: %s", r.Stdout)
	}
	checkConnectionsFirst(t, recs)
}

var ignoreConn = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Conn" }, cmp.Ignore())

// checkConnectionsFirst checks that each connection is recorded once, at
// the address of its requests, before them.
func checkConnectionsFirst(t *testing.T, recs []Record) {
	t.Helper()
	seen := map[int]netip.AddrPort{}
	for _, r := range recs {
		local, ok := seen[r.Conn]
		switch {
		case r.Method == "" && ok:
			t.Errorf("connection %d recorded twice", r.Conn)
		case r.Method == "":
			seen[r.Conn] = r.Local
		case !ok:
			t.Errorf("request %+v before its connection", r)
		case local != r.Local:
			t.Errorf("request %+v on connection aimed at %v", r, local)
		}
	}
}

func TestRebindingAnswersEachQueryInTurn(t *testing.T) {
	requireNamespaces(t)
	var mu sync.Mutex
	next := 0
	cycle := []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("169.254.169.254")}
	n := Network{
		Ports: []uint16{80},
		Resolve: func(name string, fam Family) []netip.Addr {
			mu.Lock()
			defer mu.Unlock()
			if name != "rebind.test" || fam != IPv4 {
				return nil
			}
			a := cycle[next%len(cycle)]
			next++
			return []netip.Addr{a}
		},
		Handler: echoAddr,
	}
	_, recs := runClient(t, "lookup rebind.test ip4 /1; lookup rebind.test ip4 /2", n)
	var got []netip.AddrPort
	for _, r := range requests(recs) {
		got = append(got, r.Local)
	}
	want := []netip.AddrPort{ap("93.184.216.34:80"), ap("169.254.169.254:80")}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); diff != "" {
		t.Errorf("addresses connected to (-want +got)\n%s", diff)
	}
}

func TestCloseLeavesNothingBehind(t *testing.T) {
	requireNamespaces(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("%d.%d", 1000+os.Getpid()%1000, os.Getpid())
	s, err := Start(Command{
		Argv: []string{self},
		Env:  append(os.Environ(), clientEnv+"=orphan "+marker+"; hang"),
	}, Network{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(processesWith(marker)) > 0 }, "the orphan to start")
	s.Close()
	if pids := processesWith(marker); len(pids) > 0 {
		t.Errorf("processes %v survived Close", pids)
	}
	if _, err := os.Stat(s.etc); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the files mounted over /etc survived Close: %v", err)
	}
	if r := s.Wait(); r.ExitCode != 128+int(syscall.SIGKILL) {
		t.Errorf("exit code %d, want %d", r.ExitCode, 128+int(syscall.SIGKILL))
	}
}

// TestSharedMemoryIsTheNamespacesOwn: what a command puts in /dev/shm
// stays in its namespace, so two of one program, in two namespaces, never
// meet there.
func TestSharedMemoryIsTheNamespacesOwn(t *testing.T) {
	requireNamespaces(t)
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skip("this machine has no /dev/shm")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("sbxfuzz-netns-test-%d", os.Getpid())
	defer os.Remove(filepath.Join("/dev/shm", name))
	r, _, err := Run(Command{Argv: []string{self}, Env: append(os.Environ(), clientEnv+"=shm "+name), Timeout: time.Minute}, Network{})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "shm") {
		t.Fatalf("the command failed: %+v", r)
	}
	if _, err := os.Stat(filepath.Join("/dev/shm", name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("/dev/shm/%s, made in the namespace, shows on the host (%v)", name, err)
	}
}

// TestTimeoutKillsAHungCommand: a command that never ends is killed at
// its Timeout, and said to be; the Timeout counts from the command's
// start, so that a slow setup cannot take it.
func TestTimeoutKillsAHungCommand(t *testing.T) {
	requireNamespaces(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := Run(Command{Argv: []string{self}, Env: append(os.Environ(), clientEnv+"=hang"), Timeout: 200 * time.Millisecond}, Network{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.ExitCode != 128+int(syscall.SIGKILL) {
		t.Errorf("result %+v; want timed out, killed", r)
	}
}

// TestTimeoutCountsFromTheCommandsStart: a Timeout shorter than the
// namespace's setup takes kills the command once it has started, and is
// reported as its timeout, not as namespaces being unavailable.
func TestTimeoutCountsFromTheCommandsStart(t *testing.T) {
	requireNamespaces(t)
	r, _, err := Run(Command{Argv: []string{"sleep", "600"}, Timeout: time.Nanosecond}, Network{})
	if err != nil {
		t.Fatalf("a timeout shorter than the setup: %v; want the command started, then killed", err)
	}
	if !r.TimedOut || r.ExitCode != 128+int(syscall.SIGKILL) {
		t.Errorf("result %+v; want timed out, killed", r)
	}
}

// stallEnv, set in the harness's environment, makes the namespace's helper
// (this test binary, re-executed) block before its setup begins: a helper
// that is stuck. It is read as a package variable is initialized, before
// the init that turns the program into the helper runs.
const stallEnv = "SBXFUZZ_NETNS_TEST_STALL"

var _ = stallIfAsked()

func stallIfAsked() bool {
	_, helping := os.LookupEnv(helperEnv)
	if _, stall := os.LookupEnv(stallEnv); helping && stall {
		select {}
	}
	return false
}

// TestSetupIsBounded: a helper stuck in its setup past setupWait is
// killed, and Run ends with words that say so instead of waiting for it.
func TestSetupIsBounded(t *testing.T) {
	requireNamespaces(t)
	defer func(w time.Duration) { setupWait = w }(setupWait)
	setupWait = 100 * time.Millisecond
	t.Setenv(stallEnv, "1")
	done := make(chan error, 1)
	go func() {
		_, _, err := Run(Command{Argv: []string{"sleep", "600"}}, Network{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "setup did not finish within") {
			t.Errorf("a setup past its bound: %v; want unavailable, saying the setup did not finish", err)
		}
	case <-time.After(time.Minute): // a bound for a broken test, not a measurement
		t.Fatal("Run still waits for a helper stuck in its setup")
	}
}

func TestOutputIsBounded(t *testing.T) {
	requireNamespaces(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := Run(Command{Argv: []string{self}, Env: append(os.Environ(), clientEnv+"=nostep"), MaxOutput: 4}, Network{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != "nost" || !r.Truncated {
		t.Errorf("stdout %q, truncated %v; want \"nost\", true", r.Stdout, r.Truncated)
	}
}

// TestOutputKeepsStderrsLastWords: a command that logs past MaxOutput and
// then fails has the words of its failure in Result.Stderr.
func TestOutputKeepsStderrsLastWords(t *testing.T) {
	requireNamespaces(t)
	script := `yes "INFO request served" | head -n 1000 >&2; echo "FATAL: out of file descriptors" >&2; exit 3`
	r, _, err := Run(Command{Argv: []string{"sh", "-c", script}, MaxOutput: 256}, Network{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.Stderr, "FATAL: out of file descriptors\n") || !strings.HasPrefix(r.Stderr, "INFO request served\n") || !r.Truncated {
		t.Errorf("stderr %q, truncated %v; want its first and last lines, truncated", r.Stderr, r.Truncated)
	}
}

func TestStartSaysWhyACommandCannotRun(t *testing.T) {
	_, err := Start(Command{Argv: []string{"/nonexistent/program"}}, Network{})
	if err == nil || errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v; want a missing program, not unavailable namespaces", err)
	}
}

// processesWith returns the pids whose command line holds marker.
func processesWith(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(cmdline), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitFor polls cond until it holds, failing after a minute: a bound for
// a broken test, not a measurement.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for range 6000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("gave up waiting for %s", what)
}

// fakeConn is a connection aimed at local.
type fakeConn struct {
	net.Conn
	local net.Addr
}

func (c fakeConn) LocalAddr() net.Addr { return c.local }

func TestLocalOfUnmaps(t *testing.T) {
	// The kernel delivers a connection to an IPv4-mapped address on the
	// IPv4 socket, so the namespace tests cannot show this: a socket that
	// is not IPv6-only would report the mapped form.
	c := fakeConn{local: net.TCPAddrFromAddrPort(ap("[::ffff:10.0.0.1]:443"))}
	if got := localOf(c); got != ap("10.0.0.1:443") {
		t.Errorf("localOf = %v, want 10.0.0.1:443", got)
	}
}

// TestTheSystemResolverAsksOnlyTheNamespace runs Python, whose resolver is
// the C library's: with the machine's hosts file, localhost would be
// 127.0.0.1 and never reach the DNS server.
func TestTheSystemResolverAsksOnlyTheNamespace(t *testing.T) {
	requireNamespaces(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed:", err)
	}
	script := `import socket, urllib.request
print(socket.getaddrinfo("localhost", 80, socket.AF_INET, socket.SOCK_STREAM)[0][4][0])
print(urllib.request.urlopen("http://localhost/py").read().decode())`
	var env []string
	for _, kv := range os.Environ() {
		if !strings.Contains(strings.ToLower(strings.SplitN(kv, "=", 2)[0]), "proxy") {
			env = append(env, kv)
		}
	}
	n := Network{Ports: []uint16{80}, Resolve: table(map[string][]string{"localhost/4": {"10.9.9.9"}}), Handler: echoAddr}
	r, recs, err := Run(Command{Argv: []string{python, "-c", script}, Env: env, Timeout: 2 * time.Minute}, n)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout != "10.9.9.9\n10.9.9.9:80\n" {
		t.Errorf("stdout %q (exit %d, stderr %s); want localhost at 10.9.9.9", r.Stdout, r.ExitCode, r.Stderr)
	}
	want := []Record{{Local: ap("10.9.9.9:80"), Method: "GET", Host: "localhost", Target: "/py"}}
	if diff := cmp.Diff(want, requests(recs), cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b }), ignoreConn); diff != "" {
		t.Errorf("requests (-want +got)\n%s", diff)
	}
}

func TestRecordsHoldEveryConnectionMade(t *testing.T) {
	requireNamespaces(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Command{
		Argv: []string{self},
		Env:  append(os.Environ(), clientEnv+"=touch 10.0.0.5:80; touch [2001:db8::5]:443; touch 10.0.0.6:80"),
	}, Network{Ports: []uint16{80, 443}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r := s.Wait(); r.ExitCode != 0 {
		t.Fatalf("client exited %d: %s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	var got []netip.AddrPort
	for _, r := range s.TakeRecords() {
		got = append(got, r.Local)
	}
	if again := s.Records(); len(again) != 0 {
		t.Errorf("Records after TakeRecords = %v; want none: taken records are forgotten", again)
	}
	// Connections waiting on different sockets have no order the kernel
	// tells: compare them as a set.
	slices.SortFunc(got, netip.AddrPort.Compare)
	want := []netip.AddrPort{ap("10.0.0.5:80"), ap("10.0.0.6:80"), ap("[2001:db8::5]:443")}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); diff != "" {
		t.Errorf("connections recorded once the command ended (-want +got)\n%s", diff)
	}
}

// TestSweepDead: a directory TempDir made for a process that died
// before it could remove it (SIGKILL) is removed by the next process that
// makes one of the same prefix; a live process's, this one's, one whose
// name carries no pid, one of another prefix and a link are left as they
// are.
func TestSweepDead(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true to take a dead pid from:", err)
	}
	deadPID := strconv.Itoa(dead.Process.Pid)
	names := map[string]bool{ // the name: whether it stays
		etcPrefix + deadPID + "-123":                    false,
		etcPrefix + strconv.Itoa(os.Getpid()) + "-456":  true,
		etcPrefix + strconv.Itoa(os.Getppid()) + "-789": true,
		etcPrefix + "1942686057":                        true,
		etcPrefix + "+" + deadPID + "-1":                true,
		"sbxfuzz-other-" + deadPID + "-123":             true,
	}
	for name := range names {
		if err := os.Mkdir(filepath.Join(tmp, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(tmp, "kept")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := etcPrefix + deadPID + "-link"
	if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
		t.Fatal(err)
	}
	names[link] = true
	sweepDead(tmp, etcPrefix)
	for name, stays := range names {
		if _, err := os.Lstat(filepath.Join(tmp, name)); (err == nil) != stays {
			t.Errorf("%s: there %v, want %v", name, err == nil, stays)
		}
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the link's target: %v", err)
	}
}

// TestTempDirSweepsOnce: TempDir sweeps the temporary directory the first
// time a prefix is asked for, and names its directory with this
// process's pid.
func TestTempDirSweepsOnce(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true to take a dead pid from:", err)
	}
	const prefix = "sbxfuzz-test-once-"
	left := filepath.Join(os.TempDir(), prefix+strconv.Itoa(dead.Process.Pid)+"-1")
	if err := os.Mkdir(left, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := TempDir(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("%s, a dead process's, is still there", left)
	}
	if want := prefix + strconv.Itoa(os.Getpid()) + "-"; !strings.HasPrefix(filepath.Base(dir), want) {
		t.Errorf("TempDir made %s, want a name starting %s", dir, want)
	}
	// Swept once a process: a dead process's directory that turns up
	// later stays for the next process (a sweep each call would cost a
	// glob of the temporary directory each time a proxy starts).
	later := filepath.Join(os.TempDir(), prefix+strconv.Itoa(dead.Process.Pid)+"-2")
	if err := os.Mkdir(later, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := TempDir(prefix); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(later); err != nil {
		t.Errorf("%s was swept by a second TempDir of the process: %v", later, err)
	}
}

// TestOwnProcInTheNamespace: a command in the namespace sees its PID
// namespace's /proc, not the host's: its own pid there is a small one,
// and /proc lists only the namespace's processes.
func TestOwnProcInTheNamespace(t *testing.T) {
	requireNamespaces(t)
	r, _, err := Run(Command{Argv: []string{"sh", "-c", "readlink /proc/self; ls /proc | grep -c '^[0-9][0-9]*$'"}, Timeout: time.Minute}, Network{})
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(r.Stdout)
	if r.ExitCode != 0 || len(words) != 2 {
		t.Fatalf("the command said %q: %+v", r.Stdout, r)
	}
	self, err1 := strconv.Atoi(words[0])
	procs, err2 := strconv.Atoi(words[1])
	if err1 != nil || err2 != nil || self > 10 || procs > 10 {
		t.Errorf("the command's /proc/self is %s and /proc lists %s processes: want the namespace's own, a few", words[0], words[1])
	}
}

// TestRemoveOwnTempDirs: the directories TempDir made in this process are
// removed, those of another process, another prefix and a link left.
func TestRemoveOwnTempDirs(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	const prefix = "sbxfuzz-test-own-"
	mine, err := TempDir(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "profile"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getppid())+"-1")
	longerPID := filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getpid())+"7-1") // another process's, whose PID begins as this one's
	otherPrefix := filepath.Join(os.TempDir(), "sbxfuzz-test-else-"+strconv.Itoa(os.Getpid())+"-1")
	target := t.TempDir()
	link := filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getpid())+"-link")
	for _, d := range []string{other, otherPrefix, longerPID} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	RemoveOwnTempDirs(prefix)
	if _, err := os.Lstat(mine); err == nil {
		t.Errorf("%s, this process's, is still there", mine)
	}
	for _, d := range []string{other, otherPrefix, longerPID, link, target} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s: %v, want it left", d, err)
		}
	}
}
