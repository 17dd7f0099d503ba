//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// wire is the command of testdata/wiremcp.py in case.
func wire(t *testing.T, c string) []string {
	t.Helper()
	script, err := filepath.Abs("testdata/wiremcp.py")
	if err != nil {
		t.Fatal(err)
	}
	return []string{needPython(t), script, c}
}

// TestWireShapes drives a correct server in each way MCP lets it speak on
// stdio (testdata/wiremcp.py lists them) through the same ops, which must
// come out as on the plain one: an allowed read and write, a prefix
// sibling and a link out refused, a missing file not found. A byte order
// mark before the first message was skipped with that message, the
// answer to initialize, and the start hung; an answer whose id was its
// request's number written otherwise (2.0, 2e0, "2") broke the server; a
// write longer than a pipe holds, to a server stuck writing to a stdout
// no one read while it was idle, hung until the call's timeout; a server
// that answers notifications/initialized with method-not-found and no id
// (which MCP's SDK clients pass over) could not be started, nor one whose
// tools come after it answered initialize, said by tools/list_changed.
func TestWireShapes(t *testing.T) {
	for _, c := range []string{"plain", "notif", "srvreq", "order", "paged", "v2024", "v2025", "crlf", "blank", "after",
		"preinit", "struct", "link", "chunked", "bom", "idfloat", "idexp", "idstr", "bigmeta", "bigline", "stderr", "jit", "heartbeat", "nullnotif", "lazytools"} {
		t.Run(c, func(t *testing.T) {
			tr := newTree(t)
			cfg := Config{Command: wire(t, c), Root: string(tr), Allowed: []string{string(tr) + "/work"}, Timeout: patience, StartTimeout: patience}
			s, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				s.Close()
				noneLeft(t, tr)
			}()
			d := NewDriver(s, tr)
			if c == "heartbeat" {
				time.Sleep(time.Second) // idle in a pool: its notifications fill the pipe
			}
			big := strings.Repeat("big\n", 1<<18)
			for _, tc := range []struct {
				op   core.Op
				want realfs.Verdict
			}{
				{write("/work/big", big), realfs.Allowed}, // first: the heartbeat's pipe is full
				{read("/work/hello.txt"), realfs.Allowed},
				{read("/workshop/secret"), realfs.Denied},
				{read("/work/link"), realfs.Denied},
				{read("/work/missing"), realfs.NotFound},
				{write("/work/new.txt", "new\r\n"), realfs.Allowed},
				{write("/outside/new", "x"), realfs.Denied},
				{read("/work/new.txt"), realfs.Allowed},
			} {
				out, err := d.Do(tc.op)
				if err != nil {
					t.Fatalf("%v: %v", tc.op, err)
				}
				if out.Verdict != tc.want {
					t.Errorf("%v: %v (%q), want %v", tc.op, out.Verdict, out.Detail, tc.want)
				}
			}
			if b, err := os.ReadFile(string(tr) + "/work/new.txt"); string(b) != "new\r\n" {
				t.Errorf("/work/new.txt holds %q, %v", b, err)
			}
			if b, err := os.ReadFile(string(tr) + "/work/big"); string(b) != big {
				t.Errorf("/work/big holds %d bytes, %v", len(b), err)
			}
		})
	}
}

// TestIdleExit: a server that exits when idle, between scenarios, is
// replaced by its pool; it was handed out again and failed the next
// scenario's first op, which had asked it nothing.
func TestIdleExit(t *testing.T) {
	tr := newTree(t)
	var p Pool
	defer func() {
		p.Close()
		noneLeft(t, tr)
	}()
	cfg := Config{Command: wire(t, "exitidle=0.2"), Root: string(tr), Allowed: []string{string(tr) + "/work"}, Timeout: patience, StartTimeout: patience}
	for i := range 2 {
		s, err := p.Get(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := NewDriver(s, tr).Do(read("/work/hello.txt")); err != nil || out.Verdict != realfs.Allowed {
			t.Fatalf("scenario %d: %v, %v", i, out, err)
		}
		select {
		case <-s.Exited():
		case <-time.After(patience):
			t.Fatal("the server did not exit when idle")
		}
	}
}

// TestLogOfAnotherScenarioUnheard: a log a correct server writes after its
// answer, of the file it returned, is read during its next call; on a
// server handed out again for another scenario, that call's notifications
// are not its Result's Carried, which is judged against the new world's
// files (a file allowed in one world may be forbidden in the next). A
// later call of the same scenario hears it.
func TestLogOfAnotherScenarioUnheard(t *testing.T) {
	tr := newTree(t)
	var p Pool
	defer func() {
		p.Close()
		noneLeft(t, tr)
	}()
	cfg := Config{Command: wire(t, "echoafter"), Root: string(tr), Allowed: []string{string(tr) + "/work"}, Timeout: patience, StartTimeout: patience}
	carried := make([]string, 3)
	for i, handOut := range []bool{true, true, false} {
		s, err := p.Get(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !handOut {
			s.handedOut.Store(false) // the same scenario's next call
		}
		res, err := s.CallTool("read_file", map[string]any{"path": string(tr) + "/work/hello.txt"})
		if err != nil {
			t.Fatal(err)
		}
		carried[i] = res.Carried
	}
	if strings.Contains(carried[1], "hello") {
		t.Errorf("the first call of a scenario carried the last scenario's log: %q", carried[1])
	}
	if !strings.Contains(carried[2], "hello") {
		t.Errorf("a later call of the scenario did not hear the log its last answer left: %q", carried[2])
	}
}

// TestNullAnswerOnce: a method-not-found error with no id is passed over
// once, as the answer to notifications/initialized; one that answers a
// tools/call is the server's word that it could not read the request, a
// protocol error at once, not a wait for the call's timeout.
func TestNullAnswerOnce(t *testing.T) {
	tr := newTree(t)
	cfg := Config{Command: wire(t, "nullcall"), Root: string(tr), Allowed: []string{string(tr) + "/work"}, Timeout: time.Hour, StartTimeout: patience}
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		s.Close()
		noneLeft(t, tr)
	}()
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool("read_file", map[string]any{"path": string(tr) + "/work/hello.txt"})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no id") {
			t.Errorf("a call answered by an error with no id: %v, want a protocol error saying so", err)
		}
	case <-time.After(patience):
		t.Fatal("a call answered by an error with no id waits for its timeout")
	}
}

// TestSameNumber: an id is the request's number however it is written,
// and no other number.
func TestSameNumber(t *testing.T) {
	for id, want := range map[string]bool{
		`2`: true, `2.0`: true, `2e0`: true, `20e-1`: true, `"2"`: true,
		`3`: false, `2.5`: false, `"2.0"`: false, `"x"`: false, `"3"`: false, `-2`: false, `1e300`: false,
	} {
		if got := sameNumber(proto.ID(id), 2); got != want {
			t.Errorf("sameNumber(%s, 2) = %v, want %v", id, got, want)
		}
	}
}
