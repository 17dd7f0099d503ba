package netns

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

// TestConnectionsPastTheCapAreClosed: a command that opens connections and
// keeps them holds no more than maxOpenConns of the harness's descriptors;
// every connection is recorded, those past the cap as well.
func TestConnectionsPastTheCapAreClosed(t *testing.T) {
	requireNamespaces(t)
	defer func(n int) { maxOpenConns = n }(maxOpenConns)
	maxOpenConns = 3
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	s, err := Start(Command{
		Argv:    []string{self},
		Env:     append(os.Environ(), clientEnv+"=hold 3 127.0.0.1:80;hold 5 127.0.0.1:80;hang"),
		Stdout:  wr,
		Timeout: 2 * time.Minute,
	}, Network{Ports: []uint16{80}})
	wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lines := bufio.NewReader(rd)
	readLine(t, lines, "held 3")
	s.Records()
	before := descriptors(t)
	readLine(t, lines, "held 5")
	recs := s.Records()
	after := descriptors(t)
	if len(recs) != 8 || recs[7].Conn != 8 {
		t.Errorf("records %v; want the 8 connections", recs)
	}
	if open := s.net.openConns(); open != 3 {
		t.Errorf("%d connections open; want the cap, 3", open)
	}
	if after > before {
		t.Errorf("the harness held %d descriptors, then %d after 5 connections past the cap; want none more", before, after)
	}
}

// TestSilentConnectionIsClosed: a connection that sends no request is
// closed once connWait has passed, giving back its place under the cap;
// the HTTP servers bound idle connections by it too.
func TestSilentConnectionIsClosed(t *testing.T) {
	requireNamespaces(t)
	defer func(d time.Duration) { connWait = d }(connWait)
	connWait = 50 * time.Millisecond
	r, _ := runClient(t, "idle 127.0.0.1:80", Network{Ports: []uint16{80}})
	if !strings.Contains(r.Stdout, "closed by the listener") {
		t.Errorf("stdout %q; want the silent connection closed", r.Stdout)
	}
	s, err := Start(Command{Argv: []string{"sleep", "600"}}, Network{Ports: []uint16{80}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, srv := range s.net.servers {
		if srv.ReadHeaderTimeout != connWait || srv.IdleTimeout != connWait {
			t.Errorf("a server waits %v for a header, %v on an idle connection; want %v", srv.ReadHeaderTimeout, srv.IdleTimeout, connWait)
		}
	}
}

// readLine reads a line of the command's stdout, failing unless it is want.
func readLine(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	line, err := r.ReadString('\n')
	if strings.TrimSpace(line) != want {
		t.Fatalf("the command said %q (%v); want %q", line, err, want)
	}
}

// descriptors is how many descriptors the test's process holds.
func descriptors(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}
