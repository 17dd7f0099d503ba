package realsut

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// realServerCommand returns the command of a pinned release of the MCP
// reference filesystem server, installed into the cache if need be, or
// skips the test without node and npm.
func realServerCommand(t *testing.T, version string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the test of the real %s needs node and npm (.ci/run installs them)", tool, mcp.Package)
		}
	}
	cache, err := mcp.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	entry, err := mcp.InstallServer(cache, version)
	if err != nil {
		t.Fatal(err)
	}
	return "node " + entry
}

// TestRealMCPServer: the committed reproducers of CVE-2025-53110 (prefix
// sibling) and CVE-2025-53109 (links), read and write, each fail on the
// release before the fixes with a confinement finding, and hold on the
// current release.
func TestRealMCPServer(t *testing.T) {
	files, _ := filepath.Glob("../../corpus/regressions/mcp-*.sbx")
	if len(files) < 4 {
		t.Fatalf("%d mcp-*.sbx regressions, want the four shapes", len(files))
	}
	for _, tc := range []struct {
		version string
		broken  bool
	}{{mcp.VulnerableVersion, true}, {mcp.CurrentVersion, false}} {
		a, err := MCP(realServerCommand(t, tc.version))
		if err != nil {
			t.Fatal(err)
		}
		f, end, err := a.Start()
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.Parse(file, src)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := oracle.NewCase(sc)
			got := oracle.Check(f, c, new(oracle.Coverage), oracle.Options{Timeout: 5 * time.Second, StartTimeout: 20 * time.Second})
			switch {
			case tc.broken && (len(got) == 0 || got[0].Invariant != oracle.Confinement):
				t.Errorf("%s on %s: findings %v, want confinement first", filepath.Base(file), tc.version, got)
			case !tc.broken && len(got) > 0:
				t.Errorf("%s on %s: findings %v, want none", filepath.Base(file), tc.version, got)
			}
		}
		end()
	}
}
