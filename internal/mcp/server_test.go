//go:build unix

package mcp

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// TestDriverOnAWellBehavedServer: reads and writes inside the allowed
// directory are allowed and happen, outside ones are denied, a missing
// file is not found, and ops MCP cannot carry are unsupported — the
// server, started in the tree root, is never asked.
func TestDriverOnAWellBehavedServer(t *testing.T) {
	s, tr := startFake(t, "fs")
	d := NewDriver(s, tr)
	for _, tc := range []struct {
		op     core.Op
		want   realfs.Verdict
		data   string
		reason string
	}{
		{read("/work/hello.txt"), realfs.Allowed, "hello from work\n", "a file inside"},
		{read("/workshop/secret"), realfs.Denied, "", "a prefix sibling"},
		{read("/work/link"), realfs.Denied, "", "a link out"},
		{read("/work/missing"), realfs.NotFound, "", "a missing file"},
		{read("/work/ENOENT/../../outside/secret"), realfs.Denied, "", "a path that says ENOENT is still a denial"},
		{write("/work/new", "fresh\n"), realfs.Allowed, "", "a new file inside"},
		{write("/work/nodir/f", "x"), realfs.NotFound, "", "a missing parent"},
		{write("/outside/new", "x"), realfs.Denied, "", "a file outside"},
		{read("work/hello.txt"), realfs.Unsupported, "", "a relative path"},
		{read("/work/\xff"), realfs.Unsupported, "", "a path that is not UTF-8"},
		{read("/work/a\x00b"), realfs.Unsupported, "", "a NUL in a path"},
		{write("/work/bin", "\xfe\xff"), realfs.Unsupported, "", "data that is not UTF-8"},
		{core.Op{Kind: core.OpFetch, Args: []string{"h", "/"}}, realfs.Unsupported, "", "not a file op"},
		{core.Op{Kind: core.OpRead}, realfs.Unsupported, "", "no argument"},
	} {
		got, err := d.Do(tc.op)
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if got.Verdict != tc.want || got.Data != tc.data {
			t.Errorf("%s: %v: got %v %q (%s), want %v %q", tc.reason, tc.op, got.Verdict, got.Data, got.Detail, tc.want, tc.data)
		}
	}
	if b, _ := os.ReadFile(string(tr) + "/work/new"); string(b) != "fresh\n" {
		t.Errorf("the allowed write left %q", b)
	}
	if _, err := os.Stat(string(tr) + "/outside/new"); err == nil {
		t.Error("the denied write happened")
	}
	stderrSays(t, s, "cwd: "+string(tr)+"\n")
	want := Info{Name: "fakemcp-fs", Version: "0", Protocol: ProtocolVersion}
	if diff := cmp.Diff(want, s.Info()); diff != "" {
		t.Errorf("Info (-want +got):\n%s", diff)
	}
	if err := d.Close(); err != nil || s.Err() != nil {
		t.Errorf("the driver's Close: %v, and the server after it: %v (want it still running)", err, s.Err())
	}
}

// TestDenialShapes: the ways a server says no — the current words, the
// old "Error: " prefix, a JSON-RPC error — are a denial, and words the
// profile does not know a refusal, with the server's words in Detail.
func TestDenialShapes(t *testing.T) {
	for _, tc := range []struct {
		mode, says string
		want       realfs.Verdict
	}{
		{"fs", "Access denied - path outside", realfs.Denied},
		{"old", "Error: Access denied", realfs.Denied},
		{"rpcdeny", "Access denied", realfs.Denied},
		{"vague", "Parent directory does not exist", realfs.Refused},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s, tr := startFake(t, tc.mode)
			got, err := NewDriver(s, tr).Do(read("/workshop/secret"))
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict != tc.want || !strings.Contains(got.Detail, tc.says) {
				t.Errorf("got %v %q, want %v saying %q", got.Verdict, got.Detail, tc.want, tc.says)
			}
			// The server is still good for the next op.
			if got, err := NewDriver(s, tr).Do(read("/work/hello.txt")); err != nil || got.Verdict != realfs.Allowed {
				t.Errorf("the next op: %v %v", got, err)
			}
		})
	}
}

// TestMisbehavingServers: a server that hangs, crashes, writes JSON that
// is not JSON-RPC, answers with a wrong id or an endless line fails the op
// with an error saying so (a total finding), with its stderr, and is dead afterwards.
func TestMisbehavingServers(t *testing.T) {
	for _, tc := range []struct{ mode, says string }{
		{"hang", "did not answer within " + hangTimeout.String()},
		{"crash", "the MCP server exited (exit status 3)"},
		{"notrpc", `not a JSON-RPC 2.0 message: "{\"hello\": \"world\"}"`},
		{"wrongid", "a response with id 103, want 3"},
		{"huge", "a line longer than the protocol's limit"},
		{"nomethod", "answered with an error: -32601 Unknown tool (tool read_file)"},
		{"nocontent", "a result without content: {}"},
		{"nullresult", "a result without content: null"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			tr := newTree(t)
			cfg := fakeConfig(t, tc.mode, tr)
			if tc.mode == "hang" {
				cfg.Timeout = hangTimeout
			}
			s, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			start := time.Now()
			_, err = NewDriver(s, tr).Do(read("/work/hello.txt"))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %v, want one saying %q", err, tc.says)
			}
			if !strings.Contains(err.Error(), "misbehaving: "+tc.mode) {
				t.Errorf("the error lacks the server's stderr: %v", err)
			}
			if took := time.Since(start); tc.mode == "hang" && (took < hangTimeout || took > 10*hangTimeout) {
				t.Errorf("a hang was given up on after %v, want between the timeout, %v, and ten times it", took, hangTimeout)
			}
			if s.Err() == nil {
				t.Fatal("the server is still usable")
			}
			if _, err := NewDriver(s, tr).Do(read("/work/hello.txt")); err == nil {
				t.Error("a dead server answered")
			}
		})
	}
}

// TestServerRequests: the client answers roots/list with the allowed
// directories and ping with {}, refuses other requests with
// method-not-found, and ignores notifications (the fake exits on a wrong
// answer, which would fail the op).
func TestServerRequests(t *testing.T) {
	for _, tc := range []struct{ mode, says string }{
		{"roots", "roots: file://"},
		{"ping", "ping answered"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s, tr := startFake(t, tc.mode)
			got, err := NewDriver(s, tr).Do(read("/work/hello.txt"))
			if err != nil || got.Verdict != realfs.Allowed {
				t.Fatalf("%v %v", got, err)
			}
			stderrSays(t, s, tc.says)
		})
	}
}

// TestStartFailures: a server that hangs in initialize (saying what it
// wrote on stdout instead of an answer), offers no tools,
// lacks the profile's tools or an argument their schemas require, or
// cannot start is an error from Start, and no process is left.
func TestStartFailures(t *testing.T) {
	tr := newTree(t)
	hang := fakeConfig(t, "hanginit", tr)
	// Long enough for Python to start and write its line on a loaded
	// machine: what is said of the line is raced against it.
	const hangStart = 5 * time.Second
	hang.StartTimeout = hangStart
	noTools := fakeConfig(t, "notools", tr)
	wrongProfile := fakeConfig(t, "fs", tr)
	wrongProfile.Profile = Profile{Name: "other", Read: Tool{Name: "cat", Path: "file"}}
	wrongArgs := fakeConfig(t, "fs", tr)
	wrongArgs.Profile = Profile{Name: "args", Read: Tool{Name: "read_file", Path: "file"},
		Write: Tool{Name: "write_file", Path: "path", Content: "text", Args: map[string]json.RawMessage{"mode": json.RawMessage(`"w"`)}}}
	wrongWrite := fakeConfig(t, "fs", tr)
	wrongWrite.Profile = Profile{Name: "args", Read: Tool{Name: "read_file", Path: "path"},
		Write: Tool{Name: "write_file", Path: "path", Content: "text", Args: map[string]json.RawMessage{"mode": json.RawMessage(`"w"`)}}}
	for _, tc := range []struct {
		cfg  Config
		says string
	}{
		{hang, "initialize: the MCP server did not answer within " + hangStart.String() + `; it wrote 1 line on stdout that is not JSON: "usage: fakemcp DIR..."`},
		{noTools, "the server offers no tools"},
		{wrongProfile, `the server fakemcp-fs has no tool "cat"`},
		{wrongArgs, `the tool "read_file" of the server fakemcp-fs requires the arguments ["path"] (its input schema), and the profile gives ["file"]`},
		{wrongWrite, `the tool "write_file" of the server fakemcp-fs requires the arguments ["content"] (its input schema), and the profile gives ["mode" "path" "text"]`},
		{Config{Command: []string{"/no/such/server"}}, "/no/such/server"},
		{Config{}, "an empty command"},
		{Config{Command: []string{"x"}, Profile: Profile{Name: "nothing"}}, "neither read nor write"},
	} {
		s, err := Start(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Start: %v %v, want an error saying %q", s, err, tc.says)
		}
		// Only the hang in initialize says it is a timeout: a busy
		// machine's, maybe, which a campaign confirms before it counts.
		var timeout interface{ Timeout() bool }
		if isTimeout := errors.As(err, &timeout) && timeout.Timeout(); isTimeout != strings.HasPrefix(tc.says, "initialize:") {
			t.Errorf("Start: %v: says it is a timeout %v", err, isTimeout)
		}
	}
	noneLeft(t, tr)
}

// TestCustomProfile: a server with other tool and argument names, and a
// flag before each allowed directory, is driven by a profile read from
// JSON.
func TestCustomProfile(t *testing.T) {
	p, err := ParseProfile([]byte(`{"name": "custom", "read": {"tool": "cat", "path": "file"},
		"write": {"tool": "put", "path": "file", "content": "text"}, "dir_flag": "--allow",
		"denied": ["access denied"], "not_found": ["ENOENT"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tr := newTree(t)
	cfg := fakeConfig(t, "custom", tr)
	cfg.Profile = p
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := NewDriver(s, tr)
	for _, tc := range []struct {
		op   core.Op
		want realfs.Verdict
	}{
		{write("/work/n", "x"), realfs.Allowed},
		{read("/work/n"), realfs.Allowed},
		{read("/workshop/secret"), realfs.Denied},
		{read("/work/none"), realfs.NotFound},
	} {
		if got, err := d.Do(tc.op); err != nil || got.Verdict != tc.want {
			t.Errorf("%v: %v %v, want %v", tc.op, got, err, tc.want)
		}
	}
}

// TestClose: Close ends a server that exits on EOF at once (it says so,
// and Close does not wait closeWait for it, here a minute), kills one that
// does not after closeWait (as it does one whose child holds its stderr
// open), takes the processes it started with it, and leaves calls failing
// with ErrClosed.
func TestClose(t *testing.T) {
	defer func(w time.Duration) { closeWait = w }(closeWait)
	var trees []tree
	for _, mode := range []string{"fs", "noexit", "child"} {
		closeWait = time.Second
		if mode == "fs" {
			closeWait = patience // only a Close that waits out closeWait whatever the server does takes this long
		}
		s, tr := startFake(t, mode)
		trees = append(trees, tr)
		if mode == "child" {
			// Both are found by the tree in their arguments, so the count
			// below would see a grandchild that survived.
			if !eventually(func() bool { return len(processes(string(tr)+"/")) == 2 }) {
				t.Fatalf("the server and its child are not found running: %v", processes(string(tr)+"/"))
			}
		}
		start := time.Now()
		s.Close()
		switch took := time.Since(start); {
		case mode == "fs" && took >= closeWait:
			t.Errorf("%s: Close took %v, the wait for a server that does not exit at EOF", mode, took)
		case mode == "fs":
			stderrSays(t, s, "fakemcp: EOF, exiting")
		case mode == "noexit" && took < closeWait:
			t.Errorf("%s: Close took %v, want the wait of %v before the kill", mode, took, closeWait)
		case took > 2*patience:
			t.Errorf("%s: Close took %v", mode, took)
		}
		if _, err := NewDriver(s, tr).Do(read("/work/hello.txt")); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: a call after Close: %v", mode, err)
		}
	}
	for _, tr := range trees {
		noneLeft(t, tr)
	}
}
