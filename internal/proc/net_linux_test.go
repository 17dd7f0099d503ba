package proc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/netns"
)

// startNet is StartNet, skipping the test, with the reason, where this
// machine cannot make the namespaces.
func startNet(t *testing.T, argv []string, env []string, n netns.Network) (*Process, *netns.Sandbox) {
	t.Helper()
	p, s, err := StartNet(argv, "", env, n)
	if errors.Is(err, netns.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p, s
}

func TestStartNetObservesTheChildsConnections(t *testing.T) {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s from %s", r.Host, netns.LocalAddr(r))
	})
	p, s := startNet(t, roleArgv("fetcher"), nil, netns.Network{Ports: []uint16{80}, Handler: hello})
	fmt.Fprintln(p.Stdin(), "10.1.2.3:80 a.test /x")
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if want := "200 OK hello a.test from 10.1.2.3:80\n"; line != want || err != nil {
		t.Fatalf("the child said %q, %v; want %q (stderr %s)", line, err, want, p.Stderr())
	}
	var got []string
	for _, r := range s.Records() {
		if r.Method != "" {
			got = append(got, fmt.Sprint(r.Local, " ", r.Method, " ", r.Host, " ", r.Target))
		}
	}
	if len(got) != 1 || got[0] != "10.1.2.3:80 GET a.test /x" {
		t.Errorf("records %q; want the child's one request", got)
	}
	p.Stop(patience) // stdin ends: the child exits 0 on its own
	if r := s.Wait(); r.ExitCode != 0 {
		t.Errorf("the child exited %d after stdin ended; want 0 (stderr %s)", r.ExitCode, p.Stderr())
	}
	select {
	case <-p.Exited():
	default:
		t.Error("Stop returned before the process was waited for")
	}
}

func TestStartNetKillLeavesNothingBehind(t *testing.T) {
	marker := t.TempDir()
	defer killMarked(marker)
	p, s := startNet(t, roleArgv("tree"), []string{markerEnv + "=" + marker}, netns.Network{})
	if line, err := bufio.NewReader(p.Stdout()).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the tree said %q, %v; stderr %s", line, err, p.Stderr())
	}
	// The tree, its leaf, and the orphaned setsid() leaf (the marker is
	// in the command's environment, not its init's).
	if before := marked(marker); len(before) < 3 {
		t.Fatalf("the tree is not all there: %q", before)
	}
	if p.Pid() != s.Pid() || p.mode != netNamespace {
		t.Errorf("pid %d, mode %s; want the namespace's init %d", p.Pid(), p.mode, s.Pid())
	}
	p.Kill()
	killed := time.Now()
	var left []string
	for left = marked(marker); len(left) > 0 && time.Since(killed) < orphanBound; left = marked(marker) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Fatalf("%d processes left %v after Kill: %q", len(left), orphanBound, left)
	}
	if _, err := s.Dial(t.Context(), "tcp", netip.MustParseAddrPort("127.0.0.1:80").String()); err == nil {
		t.Error("the namespace's Sandbox still dials after Kill")
	}
}

func TestStartNetSaysWhyItCannot(t *testing.T) {
	if _, _, err := StartNet([]string{"/nonexistent/program"}, "", nil, netns.Network{}); err == nil {
		t.Error("StartNet of a program that does not exist succeeded")
	}
	if _, _, err := StartNet(nil, "", nil, netns.Network{}); err == nil {
		t.Error("StartNet of no command succeeded")
	}
}

// TestEndedSaysTheStatus: a process that exits on its own, in a
// namespace or not, is told by its exit status once its stdout closes;
// one that runs on is told by nothing, after Ended's wait.
func TestEndedSaysTheStatus(t *testing.T) {
	direct, err := Start([]string{"sh", "-c", "exit 5"}, "")
	if err != nil {
		t.Skip(err)
	}
	defer direct.Kill()
	inNet, _ := startNet(t, []string{"sh", "-c", "exit 6"}, nil, netns.Network{})
	for p, want := range map[*Process]string{direct: " (exit status 5)", inNet: " (exit status 6)"} {
		if _, err := io.ReadAll(p.Stdout()); err != nil {
			t.Fatal(err)
		}
		if got := p.Ended(); got != want {
			t.Errorf("Ended() = %q, want %q", got, want)
		}
	}
	running, err := Start([]string{"sh", "-c", "exec 1>&-; sleep 60"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer running.Kill()
	io.ReadAll(running.Stdout())
	if got := running.Ended(); got != "" {
		t.Errorf("Ended() of one that runs on = %q, want none", got)
	}
}
