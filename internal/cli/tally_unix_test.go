//go:build unix

package cli

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestRunSummarizesSkippedLines: the stdout lines an MCP server wrote
// that were not JSON-RPC reach the summary line, as a clause, and the
// JSON summary, as skipped_stdout_lines, with the same count.
func TestRunSummarizesSkippedLines(t *testing.T) {
	// Seed 6's first checks draw no finding of the fake server's: one
	// would be minimized, for a minute on a busy machine.
	_, out, errs := run(t, "run", "--seed", "6", "--checks", "3", "--workers", "1", "--format", "json",
		"--sut", fakeMCP(t, "logs"), "--tree-dir", t.TempDir(), "--out", t.TempDir())
	var sum struct {
		Skipped int64 `json:"skipped_stdout_lines"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v\nstderr: %s", err, errs)
	}
	m := regexp.MustCompile(`; (\d+) non-JSON stdout lines skipped`).FindStringSubmatch(errs)
	if sum.Skipped == 0 || m == nil || m[1] != jsonNumber(sum.Skipped) {
		t.Errorf("skipped_stdout_lines %d, summary line %q: want the same count, not 0, in both", sum.Skipped, errs)
	}
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestReplayCountsStricter: a replay on a sandbox that refuses what the
// model allows shows those steps with the model's answer and says, after
// the table, how many it refused, by reason, in text and in JSON.
func TestReplayCountsStricter(t *testing.T) {
	sut := fakeMCP(t, "refuseall")
	sbx := writeFile(t, t.TempDir(), "s.sbx", "grant fs_read /work/\nfile /work/a x\nfs_read /work/a => ok x\nfs_read /work/a => ok x\n")
	_, out, errs := run(t, "replay", "--sut", sut, "--tree-dir", t.TempDir(), sbx)
	if want := "refused 2 ops the model allows (stricter, SPEC §14: not judged; the table shows the model's answer and journal for them): other 2"; !strings.Contains(out, want) {
		t.Errorf("replay says:\n%s%s\nwant %q", out, errs, want)
	}
	_, out, _ = run(t, "replay", "--sut", sut, "--tree-dir", t.TempDir(), "--format", "json", sbx)
	var doc struct {
		Stricter map[string]int64 `json:"stricter"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Stricter["other"] != 2 {
		t.Errorf("JSON stricter %v (%v):\n%s", doc.Stricter, err, out)
	}
}
