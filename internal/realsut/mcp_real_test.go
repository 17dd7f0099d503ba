//go:build unix

package realsut

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// realServerCommand returns the command of a pinned release of the MCP
// reference filesystem server as .ci/mcp-install installed it. The test
// runs only when SBXFUZZ_TEST_NPM=1 asks for it (and then fails if the
// release or node is missing); go test never installs anything.
func realServerCommand(t *testing.T, version string) string {
	t.Helper()
	if os.Getenv(mcp.TestEnv) != "1" {
		t.Skipf("runs the real %s from npm: set %s=1 after .ci/mcp-install", mcp.Package, mcp.TestEnv)
	}
	command, err := mcp.InstalledCommand(version)
	if err != nil {
		t.Fatalf("%s=1: %v", mcp.TestEnv, err)
	}
	for i, w := range command {
		command[i] = finding.QuoteArg(w)
	}
	return strings.Join(command, " ")
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
			c, _ := judge.NewCase(sc)
			got := judge.Check(f, c, nil, judge.Options{Timeout: time.Minute, StartTimeout: time.Minute})
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
