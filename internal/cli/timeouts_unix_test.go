//go:build unix

package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeMCP is the --sut value of the mcp package's fake server in mode.
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
	return "mcp:" + py + " " + script + " " + mode
}

// TestStartTimeout: a server that takes 3 s to answer initialize is
// judged under the default --start-timeout (60 s), on every command that
// takes --sut, and refused as a setup error, exit 2 in one line, under
// --start-timeout 1s: the flag reaches the MCP client. (Its own timeout
// used to be a fixed 10 s, and the flag did not exist.)
func TestStartTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a server that takes 3 s to start is started a few times")
	}
	dir := t.TempDir()
	sc := writeFile(t, dir, "a.sbx", "grant fs_read /work/\nfile /work/a x\n\nfs_read /work/a\nfs_write /work/b y\n")
	slow := fakeMCP(t, "slowinit")
	trees := filepath.Join(dir, "trees")
	if st, out, errs := run(t, "replay", "--sut", slow, "--tree-dir", trees, sc); st != ExitOK || !strings.Contains(out, "2 steps, ok") {
		t.Errorf("replay of a server slow to start, default --start-timeout: status %d\n%s%s", st, out, errs)
	}
	for _, args := range [][]string{
		{"replay", sc},
		{"minimize", sc},
		{"run", "--checks", "1", "--out", dir},
		{"import", "--layout", "raw", "--out", dir, sc},
		{"report", "--checks", "1"},
	} {
		args = append(args, "--sut", slow, "--tree-dir", trees, "--start-timeout", "1s")
		st, out, errs := run(t, args...)
		if st != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "initialize: the MCP server did not answer within 1s") {
			t.Errorf("%v: status %d, stderr %q, stdout %q; want 2 and one line saying initialize was not answered within 1s", args, st, errs, out)
		}
	}
	if st, _, errs := run(t, "replay", "--start-timeout", "0s", sc); st != ExitUsage || !strings.Contains(errs, "--start-timeout 0s: must be positive") {
		t.Errorf("--start-timeout 0s: status %d, %s", st, errs)
	}
}
