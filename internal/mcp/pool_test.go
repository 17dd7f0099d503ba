//go:build unix

package mcp

import (
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// TestPoolReuse: the pool hands back the running server while the command,
// directory and allowed directories stay the same (whatever the profile
// and timeout), and starts a fresh one when they change or it failed.
func TestPoolReuse(t *testing.T) {
	var p Pool
	defer p.Close()
	tr := newTree(t)
	cfg := fakeConfig(t, "hang", tr) // hangs on its first call only
	get := func(cfg Config) *Server {
		t.Helper()
		s, err := p.Get(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := get(cfg)
	other := cfg
	other.Timeout = hangTimeout
	if b := get(other); b != a {
		t.Fatal("a new timeout restarted the server")
	}
	if _, err := NewDriver(a, tr).Do(read("/work/hello.txt")); err == nil {
		t.Fatal("the hang was not an error")
	}
	c := get(cfg)
	if c == a || a.Err() == nil {
		t.Fatal("a hung server was handed out again")
	}
	if c.Profile().Name != Filesystem.Name {
		t.Errorf("the zero profile became %q, want %q", c.Profile().Name, Filesystem.Name)
	}
	moved := cfg
	moved.Allowed = []string{string(tr) + "/work", string(tr) + "/outside"}
	if d := get(moved); d == c || c.Err() == nil {
		t.Fatal("other allowed directories did not restart the server")
	}
}

// TestNoServerLeftBehind: after pools close — normally, after a hang,
// after a crash, with a server that ignores EOF or has started a child —
// no process of theirs is left.
func TestNoServerLeftBehind(t *testing.T) {
	var trees []tree
	for _, mode := range []string{"fs", "hang", "crash", "notrpc", "noexit", "child"} {
		var p Pool
		tr := newTree(t)
		trees = append(trees, tr)
		cfg := fakeConfig(t, mode, tr)
		if mode == "hang" {
			cfg.Timeout = hangTimeout
		}
		for range 2 {
			s, err := p.Get(cfg)
			if err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
			for range 2 {
				out, err := NewDriver(s, tr).Do(read("/work/hello.txt"))
				if mode == "fs" && (err != nil || out.Verdict != realfs.Allowed) {
					t.Fatalf("%s: %v %v", mode, out, err)
				}
			}
		}
		p.Close()
	}
	for _, tr := range trees {
		noneLeft(t, tr)
	}
}

// TestPoolKeepsSeveral: a pool of Max 2 keeps a server for each of two
// directory layouts and hands each back when its layout comes again; a
// third layout stops the one used least recently; another State, for the
// same command line, starts a fresh server.
func TestPoolKeepsSeveral(t *testing.T) {
	p := Pool{Max: 2}
	defer p.Close()
	tr := newTree(t)
	a, b, c := fakeConfig(t, "fs", tr), fakeConfig(t, "fs", tr), fakeConfig(t, "fs", tr)
	b.Allowed = []string{string(tr) + "/workshop"}
	c.Allowed = []string{string(tr) + "/outside"}
	get := func(cfg Config) *Server {
		t.Helper()
		s, err := p.Get(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sa, sb := get(a), get(b)
	if get(a) != sa || get(b) != sb || p.Len() != 2 {
		t.Fatal("a layout seen before started a server again")
	}
	sc := get(c) // a was used least recently
	if sa.Err() == nil || sb.Err() != nil || p.Len() != 2 {
		t.Fatalf("a third layout: the least recent alive %v, the other failed %v, %d live", sa.Err() == nil, sb.Err(), p.Len())
	}
	moved := c
	moved.State = "the directory is a link now"
	if get(moved) == sc {
		t.Fatal("another State reused the server")
	}
}

// TestPoolSkippedLines: the pool's count of skipped stdout lines holds
// its live servers' and those it shut down, by replacing them or when it
// closed.
func TestPoolSkippedLines(t *testing.T) {
	p := Pool{Max: 1}
	tr := newTree(t)
	cfg := fakeConfig(t, "logs", tr)
	s, err := p.Get(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewDriver(s, tr).Do(read("/work/hello.txt")); err != nil {
		t.Fatal(err)
	}
	first := s.SkippedLines() // two before each message: initialize, tools/list, a call
	if first != 6 {
		t.Fatalf("%d lines skipped, want 6", first)
	}
	moved := cfg
	moved.Allowed = []string{string(tr) + "/work", string(tr) + "/outside"}
	if _, err := p.Get(moved); err != nil { // shuts the first down: Max is 1
		t.Fatal(err)
	}
	if n := p.SkippedLines(); n != first+4 {
		t.Errorf("with one server replaced: %d lines skipped, want %d", n, first+4)
	}
	p.Close()
	if n := p.SkippedLines(); n != first+4 {
		t.Errorf("after Close: %d lines skipped, want %d", n, first+4)
	}
}

// TestPoolClosesAtOnce: the servers of a pool that ignore the end of their
// stdin are waited for together, closeWait in all, not closeWait each: an
// interrupted campaign has a moment for its sessions to end.
func TestPoolClosesAtOnce(t *testing.T) {
	defer func(w time.Duration) { closeWait = w }(closeWait)
	closeWait = 3 * time.Second
	const servers = 5
	p := Pool{Max: servers}
	tr := newTree(t)
	dirs := []string{"/work", "/workshop", "/outside", "/work/sub", "/"}
	for i := range servers {
		cfg := fakeConfig(t, "noexit", tr)
		cfg.Allowed = []string{string(tr) + dirs[i]}
		if _, err := p.Get(cfg); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	p.Close()
	// One at a time takes servers*closeWait (15 s); together, closeWait
	// and the kills.
	if took := time.Since(start); took >= (servers-1)*closeWait {
		t.Errorf("Close of %d servers that ignore EOF took %v, want about %v: one wait for all", servers, took, closeWait)
	}
	noneLeft(t, tr)
}

// TestPoolCloseDuringStart: a Close while a Get starts a server that hangs
// in its handshake kills it and returns, without a wait for the start
// timeout; the Get fails, and no process is left.
func TestPoolCloseDuringStart(t *testing.T) {
	var p Pool
	tr := newTree(t)
	cfg := fakeConfig(t, "hanginit", tr)
	cfg.StartTimeout = 10 * time.Minute
	got := make(chan error, 1)
	go func() {
		_, err := p.Get(cfg)
		got <- err
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		p.counting.Lock()
		n := len(p.starting)
		p.counting.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server has not begun its handshake after a minute")
		}
	}
	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatalf("Close has not returned a minute after it began, with a server starting (its start timeout %v)", cfg.StartTimeout)
	}
	if err := <-got; err == nil {
		t.Error("the Get whose server was killed in its handshake succeeded")
	}
	noneLeft(t, tr)
}

// TestPoolGetDuringClose: a server whose handshake begins while a Close is
// under way (the Close waiting for the Get that starts it) is killed at
// once, not left to its start timeout.
func TestPoolGetDuringClose(t *testing.T) {
	var p Pool
	p.closing = 1 // as a Close does while it waits for the Get
	cfg := fakeConfig(t, "hanginit", newTree(t))
	cfg.StartTimeout = 10 * time.Minute
	got := make(chan error, 1)
	go func() {
		_, err := p.Get(cfg)
		got <- err
	}()
	select {
	case err := <-got:
		if err == nil {
			t.Error("a Get during a Close started its server")
		}
	case <-time.After(time.Minute):
		t.Fatalf("a Get during a Close has not returned after a minute (its start timeout %v)", cfg.StartTimeout)
	}
}
