//go:build unix

package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileFlag: --profile reaches the mcp: door on every command that
// takes --sut: a profile that is neither a built-in name nor a readable
// JSON file is exit 2 in one line naming it, before a server is started;
// a built-in name is taken (the command then fails on the server, which
// here is no MCP server at all).
func TestProfileFlag(t *testing.T) {
	dir := t.TempDir()
	sc := writeFile(t, dir, "a.sbx", "grant fs_read /work/\ngrant fs_write /work/\nfile /work/a x\n\nfs_read /work/a\n")
	missing := filepath.Join(dir, "no-such-profile.json")
	for _, cmd := range [][]string{
		{"replay", sc},
		{"minimize", sc},
		{"run", "--checks", "1", "--out", dir},
		{"report", "--checks", "1"},
		{"import", "--layout", "raw", "--out", dir, sc},
	} {
		args := append(append([]string{}, cmd...), "--sut", "mcp:/bin/true", "--tree-dir", t.TempDir(), "--profile", missing)
		st, _, errs := run(t, args...)
		if st != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "no-such-profile.json") {
			t.Errorf("%v: status %d, stderr %q; want 2 and one line naming the profile", args, st, errs)
		}
	}
	st, _, errs := run(t, "replay", "--sut", "mcp:/bin/true", "--tree-dir", t.TempDir(), "--profile", "desktop-commander", sc)
	if st != ExitUsage || strings.Contains(errs, "profile") {
		t.Errorf("a built-in profile: status %d, stderr %q; want 2 for the server, not the profile", st, errs)
	}
}
