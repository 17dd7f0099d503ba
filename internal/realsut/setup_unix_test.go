//go:build unix

package realsut

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// setupPatience bounds a wait for what takes well under a second: it is
// only reached when the test fails.
const setupPatience = time.Minute

// fakeMCP is the command of the mcp package's fake server in mode.
func fakeMCP(t *testing.T, mode string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the fake MCP server is a Python script")
	}
	script, err := filepath.Abs("../mcp/testdata/fakemcp.py")
	if err != nil {
		t.Fatal(err)
	}
	return py + " " + script + " " + mode
}

// TestMCPSetupErrors: a server that lacks the profile's tools, or offers no
// tools at all, is refused when a session starts, before any scenario, in
// one line: a setup error (exit 2), not a total finding on every op. A
// server that has them starts.
func TestMCPSetupErrors(t *testing.T) {
	for _, tc := range []struct{ mode, profile, want string }{
		{"custom", "", `has no tool "read_file"`},
		{"notools", "", "offers no tools"},
		{"custom", `{"name": "custom", "read": {"tool": "cat", "path": "file"}, "write": {"tool": "put", "path": "file", "content": "text"}, "dir_flag": "--allow", "denied": ["Access denied"], "not_found": ["ENOENT"]}`, ""},
		{"plain", "", ""},
	} {
		if tc.profile != "" {
			p := filepath.Join(t.TempDir(), "profile.json")
			if err := os.WriteFile(p, []byte(tc.profile), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv(ProfileEnv, p)
		} else {
			t.Setenv(ProfileEnv, "")
		}
		a, err := MCP(fakeMCP(t, tc.mode))
		if err != nil {
			t.Fatal(err)
		}
		a.TreeDir = filepath.Join(t.TempDir(), "trees")
		_, end, err := a.Start()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: starting a session: %v", tc.mode, err)
			} else {
				end()
			}
			continue
		}
		if err == nil {
			end()
			t.Errorf("%s: a session started; want a setup error saying %q", tc.mode, tc.want)
		} else if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line saying %q", tc.mode, err, tc.want)
		}
		if runs, _ := os.ReadDir(a.TreeDir); len(runs) > 0 {
			t.Errorf("%s: the refused session left %d run directories", tc.mode, len(runs))
		}
	}
}

// TestMCPProfileFIFO: a profile path that is a named pipe is refused at
// once, as not a regular file, instead of waiting for a writer.
func TestMCPProfileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "profile.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ProfileEnv, fifo)
	done := make(chan error, 1)
	go func() {
		_, err := MCP("node server.js")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a profile that is a named pipe: %v, want a refusal", err)
		}
	case <-time.After(setupPatience): // a refusal is at once; only a stuck open waits this long
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatalf("still reading the named pipe after %v", setupPatience)
	}
}

// TestMCPOpTimeout: --timeout reaches every call of an MCP server, and a
// call it does not answer in time is a hang of the oracle's (Finding.Hang,
// on the op), which a campaign confirms on a fresh server, not a server
// failure taken as it is; the fresh server answers the same op. The fake
// server hangs on the first call of all its processes only.
func TestMCPOpTimeout(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "hung")
	a, err := MCP(fakeMCP(t, "hangonce="+marker))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("t.sbx", []byte("grant fs_read /work/\nfile /work/a x\n\nfs_read /work/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(op, oracleTimeout time.Duration) []oracle.Finding {
		a.Timeouts = Timeouts{Op: op, Start: setupPatience}
		f, end, err := a.Start()
		if err != nil {
			t.Fatal(err)
		}
		defer end()
		c, _ := judge.NewCase(sc)
		return judge.Check(f, c, nil, judge.Options{Timeout: oracleTimeout, StartTimeout: setupPatience})
	}
	// A second is only waited for, never raced: the fake answers its other
	// calls at once, and hangs on this one for an hour.
	got := check(time.Second, time.Second)
	if len(got) != 1 || !got[0].Hang || got[0].Step != 1 || !strings.Contains(got[0].Detail, "fs_read /work/a did not return within 1s") {
		t.Fatalf("a call the server does not answer: %+v; want one hang on step 1", got)
	}
	if got := check(time.Second, time.Second); len(got) > 0 {
		t.Errorf("a fresh server, which answers: %+v", got)
	}
	// The server's own timeout is --timeout, whatever the oracle waits:
	// with the oracle patient, the call's timeout is what ends the op.
	os.Remove(marker)
	got = check(300*time.Millisecond, setupPatience)
	if len(got) != 1 || got[0].Hang || !strings.Contains(got[0].Detail, "tools/call: the MCP server did not answer within 300ms") {
		t.Errorf("a call past --timeout, the oracle patient: %+v; want the server's timeout", got)
	}
}

// TestSkippedLinesCounted: the stdout lines an MCP server writes that are
// not JSON-RPC reach the session's tally, counted over every server of
// the session (the run's and the replay's, each in a slot of its own),
// after the session ended and its servers were shut down.
func TestSkippedLinesCounted(t *testing.T) {
	a, err := MCPWith(fakeMCP(t, "logs"), "")
	if err != nil {
		t.Fatal(err)
	}
	a.TreeDir = t.TempDir()
	_, tally := checkCounted(t, a, "grant fs_read /work/\ngrant fs_write /work/\nfile /work/a.txt hello\n\nfs_read /work/a.txt\n")
	// Two servers, each with two lines before initialize's answer,
	// tools/list's and one call's.
	if got := tally.SkippedLines; got != 12 {
		t.Errorf("%d lines skipped, want 12", got)
	}
}

// TestRootsKeptForAServerThatHoldsThem: a server that holds its allowed
// directories from its start (a bind mount, a Landlock rule, an open
// handle; its profile says holds_dirs) serves scenario after scenario,
// the tree keeping their directories; after a scenario whose world made
// one anew (there a file, where the grant has none), the next is served
// by a server given the new one, not the one holding the old, which would
// find nothing there (stricter, not found where the model reads). Its
// servers are not started again while the directories stay.
func TestRootsKeptForAServerThatHoldsThem(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	t.Setenv("FAKE_STARTS", starts)
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "\n")
	}
	profile := filepath.Join(t.TempDir(), "held.json")
	if err := os.WriteFile(profile, []byte(`{"name": "held", "holds_dirs": true, "trims": true, "read": {"tool": "read_file"}, "write": {"tool": "write_file"},
		"denied": ["Access denied", "outside allowed directories"], "not_found": ["ENOENT", "no such file"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := MCPWith(fakeMCP(t, "pinned"), profile)
	if err != nil {
		t.Fatal(err)
	}
	a.TreeDir = t.TempDir()
	f, end, tally, err := a.Target().StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	const read = "grant fs_read /work/\ngrant fs_write /work/\nfile /work/a.txt hello\n\nfs_read /work/a.txt => ok hello\n"
	const other = "grant fs_read /data/\ngrant fs_write /data/\nfile /data/b.txt b\nfile /work x\n\nfs_read /data/b.txt => ok b\n"
	for i, src := range []string{read, read, read, other, read} {
		sc, err := scenario.Parse("t.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		c, err := judge.NewCase(a.Adapt(sc))
		if err != nil {
			t.Fatal(err)
		}
		if fs := judge.Check(f, c, nil, judge.Options{Timeout: 10 * time.Second}); len(fs) != 0 {
			t.Errorf("scenario %d: findings %v, want none", i+1, fs)
		}
		if n := count(); i == 2 && n > 3 {
			t.Errorf("%d servers started for 3 scenarios on one directory, want at most 3 (the probe, then one per slot)", n)
		}
	}
	if got := tally().Stricter; len(got) != 0 {
		t.Errorf("stricter %v, want none: a server held a directory no longer on the disk", got)
	}
}
