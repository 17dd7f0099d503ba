//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
)

// bareProfile is a profile of the fake server's "custom" mode that forgets
// its dir_flag: the server, given its directories bare, allows none, and
// the profile promises all the model allows, so every allowed op is a
// finding, not a stricter op (SPEC §14). Without this profile the fake
// server is exit 2 instead (it lists none of server-filesystem's tools): a
// replay that forgets the profile does not reproduce the finding.
const bareProfile = `{"name": "bare", "read": {"tool": "cat", "path": "file"},
 "write": {"tool": "put", "path": "file", "content": "text"},
 "denied": ["access denied"], "not_found": ["ENOENT"], "promises": ["all"]}`

// TestReproduceNamesProfile: a campaign run under --profile FILE and
// --tree-dir DIR (given relative) and an explicit --timeout writes
// findings whose reproduce line names the profile and the tree directory
// by their absolute paths and the timeout, and that line, run as it is
// from another directory, replays the finding (exit 1).
func TestReproduceNamesProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a campaign and its replay on the fake MCP server")
	}
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache")) // the replay's default --tree-dir
	writeFile(t, dir, "bare.json", bareProfile)
	sutName, out := fakeMCP(t, "custom"), filepath.Join(dir, "findings")
	t.Chdir(dir)
	st, stdout, errs := run(t, "run", "--sut", sutName, "--profile", "bare.json", "--timeout", "20s", "--checks", "5",
		"--workers", "1", "--out", out, "--tree-dir", "trees")
	if st != ExitFinding {
		t.Fatalf("run: status %d, want 1\n%s%s", st, stdout, errs)
	}
	files, err := filepath.Glob(filepath.Join(out, "*.sbx"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no finding written in %s: %v", out, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	line := reproduceLine(t, string(data))
	if want := " --profile " + filepath.Join(dir, "bare.json") + " --timeout 20s --tree-dir " + filepath.Join(dir, "trees") + " "; !strings.Contains(line, want) {
		t.Fatalf("reproduce line %q does not hold %q", line, want)
	}
	words, err := proc.SplitWords(line)
	if err != nil || len(words) < 2 || words[0] != "sbxfuzz" {
		t.Fatalf("reproduce line %q: %q, %v", line, words, err)
	}
	t.Chdir(t.TempDir())
	if st, stdout, errs := run(t, words[1:]...); st != ExitFinding {
		t.Errorf("%s: status %d, want 1\n%s%s", line, st, stdout, errs)
	}
}

// reproduceLine returns the command of the "# reproduce: " line of a
// finding's text, or fails the test.
func reproduceLine(t *testing.T, text string) string {
	t.Helper()
	for l := range strings.SplitSeq(text, "\n") {
		if cmd, ok := strings.CutPrefix(l, "# reproduce: "); ok {
			return cmd
		}
	}
	t.Fatalf("no reproduce line in\n%s", text)
	return ""
}

// TestFindingsDirNamesProfile: with no --out, a campaign run under
// --profile writes its findings in a directory of their own, not in the
// one the same command's findings under the door's default profile go
// to (they used to share it, and a replay line could not be told from
// the directory it was in).
func TestFindingsDirNamesProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a campaign on the fake MCP server")
	}
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	writeFile(t, dir, "bare.json", bareProfile)
	sutName := fakeMCP(t, "custom")
	t.Chdir(dir)
	st, stdout, errs := run(t, "run", "--sut", sutName, "--profile", "bare.json", "--checks", "5", "--workers", "1")
	if st != ExitFinding {
		t.Fatalf("run: status %d, want 1\n%s%s", st, stdout, errs)
	}
	dirs, err := os.ReadDir(filepath.Join(cache, "sbxfuzz", "findings"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("findings directories %v, %v: want one", dirs, err)
	}
	got := dirs[0].Name()
	if plain := finding.DirName(sutName); got == plain {
		t.Errorf("findings under --profile went to %s, the default profile's directory", got)
	}
	if want := finding.DirName(sutName + " --profile " + filepath.Join(dir, "bare.json")); got != want {
		t.Errorf("findings under --profile went to %s, want %s", got, want)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "sbxfuzz", "findings", got, "*.sbx")); len(files) == 0 || !strings.Contains(stdout, files[0]) {
		t.Errorf("findings in %s: %v; stdout %q", got, files, stdout)
	}
}
