//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// skipUnlessAsked skips a test of the real server unless
// SBXFUZZ_TEST_NPM=1 asks for it: go test never installs anything, and
// without the variable it needs neither node nor the network.
func skipUnlessAsked(t *testing.T) {
	t.Helper()
	if os.Getenv(TestEnv) != "1" {
		t.Skipf("runs the real %s from npm: set %s=1 after .ci/mcp-install", Package, TestEnv)
	}
}

// realServer returns the command of Package at version as .ci/mcp-install
// installed it, or fails the test: it was asked for.
func realServer(t *testing.T, version string) []string {
	t.Helper()
	command, err := InstalledCommand(version)
	if err != nil {
		t.Fatalf("%s=1: %v", TestEnv, err)
	}
	return command
}

// TestRealServer drives the real server-filesystem, both pinned releases,
// over the same tree: /work allowed, a prefix sibling /workshop/secret,
// and /work/link to /outside/secret. The vulnerable release reads both
// secrets and writes into the sibling (CVE-2025-53110, CVE-2025-53109);
// the current one refuses all three. It logs how long a start and a call
// take.
func TestRealServer(t *testing.T) {
	skipUnlessAsked(t)
	for _, tc := range []struct {
		version string
		escapes bool
	}{
		{VulnerableVersion, true},
		{CurrentVersion, false},
	} {
		t.Run(tc.version, func(t *testing.T) {
			command := realServer(t, tc.version)
			tr := newTree(t)
			var p Pool
			defer func() {
				p.Close()
				noneLeft(t, tr)
			}()
			cfg := Config{Command: command, Root: string(tr), Allowed: []string{string(tr) + "/work"}, Timeout: patience, StartTimeout: patience}
			start := time.Now()
			s, err := p.Get(cfg)
			if err != nil {
				t.Fatal(err)
			}
			started := time.Since(start)
			d := NewDriver(s, tr)
			escape := func(data string) realfs.Outcome {
				if tc.escapes {
					return realfs.Outcome{Verdict: realfs.Allowed, Data: data}
				}
				return realfs.Outcome{Verdict: realfs.Denied}
			}
			for _, c := range []struct {
				op   core.Op
				want realfs.Outcome
			}{
				{read("/work/hello.txt"), realfs.Outcome{Verdict: realfs.Allowed, Data: "hello from work\n"}},
				{read("/workshop/secret"), escape("WORKSHOP SECRET\n")},
				{read("/work/link"), escape("OUTSIDE SECRET\n")},
				{read("/work/missing"), realfs.Outcome{Verdict: realfs.NotFound}},
				{write("/work/new", "new\n"), realfs.Outcome{Verdict: realfs.Allowed}},
				{write("/workshop/new", "escaped\n"), escape("")},
			} {
				got, err := d.Do(c.op)
				if err != nil {
					t.Fatalf("%v: %v", c.op, err)
				}
				if got.Verdict != c.want.Verdict || got.Data != c.want.Data {
					t.Errorf("%v: %v %q (%s), want %v %q", c.op, got.Verdict, got.Data, got.Detail, c.want.Verdict, c.want.Data)
				}
			}
			if _, err := os.Stat(string(tr) + "/workshop/new"); (err == nil) != tc.escapes {
				t.Errorf("the write into the sibling happened: %v, want %v", err == nil, tc.escapes)
			}
			// The time of one call, on a server that has warmed up.
			const n = 50
			times := make([]time.Duration, n)
			for i := range times {
				t0 := time.Now()
				if got, err := d.Do(read("/work/hello.txt")); err != nil || got.Verdict != realfs.Allowed {
					t.Fatalf("%v %v", got, err)
				}
				times[i] = time.Since(t0)
			}
			slices.Sort(times)
			info := s.Info()
			t.Logf("%s (serverInfo %s %s, protocol %s): start to ready %v; read_file median %v, max %v over %d calls",
				tc.version, info.Name, info.Version, info.Protocol, started.Round(time.Millisecond),
				times[n/2].Round(10*time.Microsecond), times[n-1].Round(10*time.Microsecond), n)
		})
	}
}

// realTreeOutside makes the test's tree outside the directories a server
// allows by default: under $SBXFUZZ_TREE_DIR, else the user's cache
// directory, never the temporary directory. It skips the test when that
// lies under one of avoid (fast-filesystem-mcp allows /tmp, /home and
// /Users whatever it is told, and its $HOME, which Start makes its own).
func realTreeOutside(t *testing.T, avoid ...string) tree {
	t.Helper()
	base, err := realfs.DefaultTreeDir()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range append(avoid, os.TempDir()) {
		if rel, err := filepath.Rel(a, base); err == nil && !strings.HasPrefix(rel, "..") {
			t.Skipf("the tree directory %s is under %s, which the server allows by default: set %s", base, a, realfs.TreeDirEnv)
		}
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp(base, "mcp-real-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	root, err = filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{
		"/work/hello.txt":  "hello from work\nsecond line",
		"/work/lines.txt":  "windows\r\nline ends\r\n",
		"/work/sub/a":      "a",
		"/outside/secret":  "OUTSIDE SECRET\n",
		"/workshop/secret": "WORKSHOP SECRET\n",
	})
	return tree(root)
}

// TestRealProfiles drives the other servers with a built-in profile, at
// their pinned releases, through their profiles: a read of an allowed
// file gives its content as the profile extracts it (out of a JSON object,
// after a header line, by lines, or whole), a write lands, a read outside
// the allowed directory is denied, a missing file is not found. A file
// with "\r\n" line ends and a final newline reads back byte for byte,
// which desktop-commander, reading by lines, gives only through its
// profile. Each server's own escapes are driven too (escapes): what it
// lets through outside its directory, read from the disk, so that a door
// that took an answer for a refusal, or the reverse, fails here. A server
// that logs on stdout (logs) has its log lines skipped, and counted.
func TestRealProfiles(t *testing.T) {
	skipUnlessAsked(t)
	for _, tc := range []struct {
		pin     string
		profile Profile
		avoid   []string
		files   map[string]string // more files in the tree
		escapes []opWant          // ops outside /work it lets through
		logs    bool              // it writes log lines on stdout
	}{
		{pin: FastFilesystemPin, profile: FastFilesystem, avoid: []string{"/tmp", "/home", "/Users"}},
		{pin: DesktopCommanderPin, profile: DesktopCommander},
		{
			// A string prefix of the unresolved path lets the sibling
			// through.
			pin: AgentInfraFilesystemPin, profile: AgentInfraFilesystem, logs: true,
			escapes: []opWant{
				{read("/workshop/secret"), realfs.Outcome{Verdict: realfs.Allowed, Data: "WORKSHOP SECRET\n"}},
				{write("/workshop/new", "escaped"), realfs.Outcome{Verdict: realfs.Allowed}},
			},
		},
		{
			// It compares paths in lower case: /WORK is not /work on
			// this disk, but it lets it through.
			pin: MCPServerFilesystemPin, profile: MCPServerFilesystem,
			files: map[string]string{"/WORK/secret": "UPPER SECRET\n"},
			escapes: []opWant{
				{read("/WORK/secret"), realfs.Outcome{Verdict: realfs.Allowed, Data: "UPPER SECRET\n"}},
				{read("/workshop/secret"), realfs.Outcome{Verdict: realfs.Allowed, Data: "WORKSHOP SECRET\n"}},
				{write("/workshop/new", "escaped"), realfs.Outcome{Verdict: realfs.Allowed}},
			},
		},
	} {
		t.Run(tc.profile.Name, func(t *testing.T) {
			command := realServer(t, tc.pin)
			tr := realTreeOutside(t, tc.avoid...)
			writeFiles(t, string(tr), tc.files)
			var p Pool
			defer func() {
				p.Close()
				noneLeft(t, tr)
			}()
			cfg := Config{Command: command, Profile: tc.profile, Root: string(tr), Allowed: []string{string(tr) + "/work"}, Timeout: patience, StartTimeout: patience}
			start := time.Now()
			s, err := p.Get(cfg)
			if err != nil {
				t.Fatal(err)
			}
			started := time.Since(start)
			d := NewDriver(s, tr)
			ops := []opWant{
				{read("/work/hello.txt"), realfs.Outcome{Verdict: realfs.Allowed, Data: "hello from work\nsecond line"}},
				{read("/work/sub/a"), realfs.Outcome{Verdict: realfs.Allowed, Data: "a"}},
				{read("/work/lines.txt"), realfs.Outcome{Verdict: realfs.Allowed, Data: "windows\r\nline ends\r\n"}},
				{write("/work/new", "new\nfile"), realfs.Outcome{Verdict: realfs.Allowed}},
				{read("/work/new"), realfs.Outcome{Verdict: realfs.Allowed, Data: "new\nfile"}},
				{read("/outside/secret"), realfs.Outcome{Verdict: realfs.Denied}},
				{write("/outside/new", "escaped"), realfs.Outcome{Verdict: realfs.Denied}},
				{read("/work/missing"), realfs.Outcome{Verdict: realfs.NotFound}},
			}
			for _, c := range append(ops, tc.escapes...) {
				got, err := d.Do(c.op)
				if err != nil {
					t.Fatalf("%v: %v", c.op, err)
				}
				if got.Verdict != c.want.Verdict || got.Data != c.want.Data {
					t.Errorf("%v: %v %q (%s), want %v %q", c.op, got.Verdict, got.Data, got.Detail, c.want.Verdict, c.want.Data)
				}
			}
			for _, c := range append(ops, tc.escapes...) {
				if c.op.Kind == core.OpWrite && c.want.Verdict == realfs.Allowed {
					if data, err := os.ReadFile(string(tr) + c.op.Args[0]); err != nil || string(data) != c.op.Args[1] {
						t.Errorf("the write to %s: %q, %v; want it on the disk", c.op.Args[0], data, err)
					}
				}
			}
			if _, err := os.Stat(string(tr) + "/outside/new"); err == nil {
				t.Error("the write outside the allowed directory landed")
			}
			if got := s.SkippedLines(); (got > 0) != tc.logs {
				t.Errorf("%d lines of its stdout skipped, want some: %v", got, tc.logs)
			}
			info := s.Info()
			t.Logf("%s (serverInfo %s %s, protocol %s): start to ready %v", tc.pin, info.Name, info.Version, info.Protocol, started.Round(time.Millisecond))
		})
	}
}

// opWant is an op and the outcome a test wants of it.
type opWant struct {
	op   core.Op
	want realfs.Outcome
}

// writeFiles writes files (world path -> content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(root+p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(root+p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
