package netns

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startClient starts the test binary as a client of steps in a namespace
// answered by n, closed when the test ends.
func startClient(t *testing.T, steps string, n Network) *Sandbox {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Command{Argv: []string{self}, Env: append(os.Environ(), clientEnv+"="+steps), Timeout: 2 * time.Minute}, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// dialWhenListening dials address from inside s until the command listens
// there: a bound for a broken test, not a measurement.
func dialWhenListening(t testing.TB, s *Sandbox, address string) net.Conn {
	t.Helper()
	var last error
	for range 6000 {
		c, err := s.Dial(context.Background(), "tcp", address)
		if err == nil {
			return c
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("Dial %s: %v", address, err)
		}
		last = err
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("Dial %s: gave up: %v", address, last)
	return nil
}

// greeting reads the line the test's server says first, then checks that
// it echoes.
func greeting(t *testing.T, c net.Conn) string {
	t.Helper()
	r := bufio.NewReader(c)
	hello, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the server's first line: %v", err)
	}
	fmt.Fprintf(c, "echo me\n")
	if back, err := r.ReadString('\n'); err != nil || back != "echo me\n" {
		t.Errorf("echo = %q, %v; want \"echo me\\n\"", back, err)
	}
	return strings.TrimSpace(hello)
}

func TestDialReachesTheCommandInTheNamespace(t *testing.T) {
	requireNamespaces(t)
	s := startClient(t, "listen 127.0.0.1:8080; listen [::1]:8081; hang", Network{Ports: []uint16{80}})
	for _, address := range []string{"127.0.0.1:8080", "[::1]:8081"} {
		c := dialWhenListening(t, s, address)
		// The command is a child of its PID namespace's init: the server
		// this reached is in the namespace, not one of the machine's.
		if hello := greeting(t, c); !underInit(hello) {
			t.Errorf("%s: the server says %q; want a child of pid 1, not pid 1", address, hello)
		}
		c.Close()
	}
	if recs := s.Records(); len(recs) != 0 {
		t.Errorf("Dial's connections were recorded: %+v", recs)
	}
}

func TestDialSaysWhyItCannot(t *testing.T) {
	requireNamespaces(t)
	s := startClient(t, "hang", Network{Ports: []uint16{80}})
	cases := []struct {
		network, address string
		want             error // nil: any error
		reason           string
	}{
		{"tcp", "127.0.0.1:9", syscall.ECONNREFUSED, "nothing listens there in the namespace"},
		{"tcp", "localhost:80", nil, "a name is the namespace's to resolve"},
		{"tcp6", "127.0.0.1:80", nil, "an IPv4 address on tcp6"},
		{"udp", "127.0.0.1:53", nil, "only TCP"},
	}
	for _, c := range cases {
		conn, err := s.Dial(context.Background(), c.network, c.address)
		if err == nil {
			conn.Close()
			t.Errorf("Dial %s %s succeeded; want an error: %s", c.network, c.address, c.reason)
		} else if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("Dial %s %s = %v; want %v: %s", c.network, c.address, err, c.want, c.reason)
		}
	}
}

func TestDialIsBoundedByItsContext(t *testing.T) {
	requireNamespaces(t)
	s := startClient(t, "listen 127.0.0.1:8080; hang", Network{})
	dialWhenListening(t, s, "127.0.0.1:8080").Close()
	// A stopped init answers nothing: only the context ends the wait.
	pid := s.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, pid)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := s.Dial(ctx, "tcp", "[::1]:8080")
	syscall.Kill(pid, syscall.SIGCONT)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dial with a stopped init = %v; want the context's deadline", err)
	}
	// The answer to the request given up on (an IPv6 socket) is thrown
	// away, not taken for the next one's.
	for range 3 {
		c, err := s.Dial(context.Background(), "tcp", "127.0.0.1:8080")
		if err != nil {
			t.Fatalf("Dial after a given-up one: %v", err)
		}
		greeting(t, c)
		c.Close()
	}
}

func TestDialAfterTheEndFailsAtOnce(t *testing.T) {
	requireNamespaces(t)
	exited := startClient(t, "exit 0", Network{})
	exited.Wait()
	closed := startClient(t, "listen 127.0.0.1:8080; hang", Network{})
	dialWhenListening(t, closed, "127.0.0.1:8080").Close()
	closed.Close()
	for name, s := range map[string]*Sandbox{"exited": exited, "closed": closed} {
		done := make(chan error, 1)
		go func() {
			c, err := s.Dial(context.Background(), "tcp", "127.0.0.1:8080")
			if c != nil {
				c.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: Dial succeeded", name)
			}
		case <-time.After(time.Minute): // a bound for a broken test
			t.Fatalf("%s: Dial hangs", name)
		}
	}
}

func TestTheInitExitsWithTheCommandsStatus(t *testing.T) {
	requireNamespaces(t)
	for _, code := range []int{0, 3, 77} {
		s := startClient(t, "pids; exit "+strconv.Itoa(code), Network{})
		r := s.Wait()
		if r.ExitCode != code || !underInit(r.Stdout) {
			t.Errorf("exit %d: got exit %d, stdout %q; want the command (a child of the init) and its status", code, r.ExitCode, r.Stdout)
		}
	}
}

func TestTheInitReapsOrphans(t *testing.T) {
	requireNamespaces(t)
	s, _, stdout := startPiped(t, "shortorphan; hang", io.Discard)
	if left, err := bufio.NewReader(stdout).ReadString('\n'); left != "left\n" {
		t.Fatalf("the command said %q, %v", left, err)
	}
	init := s.Pid()
	// The orphan's parent is the init; once it exited, only the command
	// is left as the init's child, unless the init leaves it a zombie.
	waitFor(t, func() bool { return len(childrenOf(init)) == 1 }, "the orphan to be reaped")
}

// underInit says the words of "pids" are a child's of pid 1 (the init's
// threads take pids too, so the child's own is not always 2).
func underInit(words string) bool {
	var pid, ppid int
	_, err := fmt.Sscanf(words, "pid %d ppid %d", &pid, &ppid)
	return err == nil && ppid == 1 && pid > 1
}

// childrenOf lists the processes whose parent is ppid, from /proc.
func childrenOf(ppid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fields := statFields(e.Name()); len(fields) > 1 && fields[1] == strconv.Itoa(ppid) {
			out = append(out, pid)
		}
	}
	return out
}

// startPiped starts the test binary as a client of steps with its stdin
// and stdout pipes of the test's and its stderr into stderr.
func startPiped(t *testing.T, steps string, stderr io.Writer) (s *Sandbox, stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s, err = Start(Command{Argv: []string{self}, Env: append(os.Environ(), clientEnv+"="+steps),
		Stdin: inR, Stdout: outW, Stderr: stderr, Timeout: 2 * time.Minute}, Network{})
	inR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		inW.Close()
		outR.Close()
	})
	return s, inW, outR
}

func TestTheCommandSpeaksOverTheCallersPipes(t *testing.T) {
	requireNamespaces(t)
	var stderr syncBuffer
	s, stdin, stdout := startPiped(t, "stderr hello; echoin", &stderr)
	r := bufio.NewReader(stdout)
	if said, err := r.ReadString('\n'); said != "said\n" || err != nil {
		t.Fatalf("first line %q, %v; want \"said\\n\"", said, err)
	}
	fmt.Fprintln(stdin, "ping")
	if back, err := r.ReadString('\n'); back != "ping\n" || err != nil {
		t.Errorf("echoed %q, %v; want \"ping\\n\"", back, err)
	}
	stdin.Close() // the command's stdin ends: the init holds no copy of it
	rest, err := io.ReadAll(r)
	if string(rest) != "copied\n" || err != nil {
		t.Errorf("after stdin ended: %q, %v; want \"copied\\n\"", rest, err)
	}
	res := s.Wait()
	if res.ExitCode != 0 || res.Stdout != "" || res.Stderr != "" {
		t.Errorf("result %+v; want exit 0 and no output kept", res)
	}
	if stderr.String() != "hello\n" {
		t.Errorf("stderr %q; want \"hello\\n\"", stderr.String())
	}
}

func TestTheInitHoldsNoCopyOfStdout(t *testing.T) {
	requireNamespaces(t)
	_, _, stdout := startPiped(t, "closeout; hang", io.Discard)
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(stdout)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("reading stdout: %v", err)
		}
	case <-time.After(time.Minute): // a bound for a broken test
		t.Fatal("no end of stdout while the command, which closed it, still runs")
	}
}

// syncBuffer is a bytes.Buffer safe for the command's stderr copier and
// the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// BenchmarkStartClose is what a namespace costs a door that starts one:
// a command that waits, started in a namespace with one HTTP port, then
// closed.
func BenchmarkStartClose(b *testing.B) {
	if err := Supported(); err != nil {
		b.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), clientEnv+"=hang")
	for b.Loop() {
		s, err := Start(Command{Argv: []string{self}, Env: env}, Network{Ports: []uint16{80}})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkDial is one connection from inside a namespace to a server
// the command listens with, written to and answered.
func BenchmarkDial(b *testing.B) {
	if err := Supported(); err != nil {
		b.Skip(err)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	s, err := Start(Command{Argv: []string{self}, Env: append(os.Environ(), clientEnv+"=listen 127.0.0.1:8080; hang")}, Network{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	dialWhenListening(b, s, "127.0.0.1:8080").Close()
	for b.Loop() {
		c, err := s.Dial(context.Background(), "tcp", "127.0.0.1:8080")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

func TestCommandTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout, want time.Duration
		reason        string
	}{
		{0, defaultTimeout, "zero is the default bound"},
		{-1, 0, "negative is no bound: the caller kills the command"},
		{time.Second, time.Second, "a bound is kept"},
	} {
		if got := (Command{Timeout: tc.timeout}).timeout(); got != tc.want {
			t.Errorf("Timeout %v: %v, want %v: %s", tc.timeout, got, tc.want, tc.reason)
		}
	}
}

// waitStopped waits until pid is stopped: kill returns before a busy
// process has taken its SIGSTOP.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for range 1000 {
		if f := statFields(strconv.Itoa(pid)); len(f) > 0 && f[0] == "T" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d did not stop in 10 s", pid)
}

// statFields returns the fields of /proc/PID/stat after the command's
// name (state, ppid, …), nil if pid is gone. The name may hold anything,
// ")" too: the fields start after its last ")".
func statFields(pid string) []string {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	return strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
}
