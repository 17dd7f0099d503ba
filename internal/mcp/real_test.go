package mcp

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// realServer returns the command of Package at version, installed into
// the cache by InstallServer if need be, or skips the test without node
// and npm.
func realServer(t *testing.T, version string) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not installed: the test of the real %s needs node and npm", Package)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skipf("npm is not installed: the test of the real %s needs node and npm", Package)
	}
	cache, err := DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	had := false
	if _, err := os.Stat(Entry(cache, version)); err == nil {
		had = true
	}
	entry, err := InstallServer(cache, version)
	if err != nil {
		t.Fatal(err)
	}
	if !had {
		t.Logf("%s@%s installed into %s in %v", Package, version, cache, time.Since(start).Round(time.Millisecond))
	}
	return []string{node, entry}
}

// TestRealServer drives the real server-filesystem, both pinned releases,
// over the same tree: /work allowed, a prefix sibling /workshop/secret,
// and /work/link to /outside/secret. The vulnerable release reads both
// secrets and writes into the sibling (CVE-2025-53110, CVE-2025-53109);
// the current one refuses all three. It logs how long a start and a call
// take.
func TestRealServer(t *testing.T) {
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
			cfg := Config{Command: command, Root: string(tr), Allowed: []string{string(tr) + "/work"}}
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
