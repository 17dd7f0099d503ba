//go:build unix

package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestRunSummarizesSkippedLines: the stdout lines an MCP server wrote
// that were not JSON-RPC reach the summary line, as a clause, and the
// JSON summary, as skipped_stdout_lines, with the same count.
func TestRunSummarizesSkippedLines(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the fake MCP server is a Python script")
	}
	script, err := filepath.Abs("../mcp/testdata/fakemcp.py")
	if err != nil {
		t.Fatal(err)
	}
	_, out, errs := run(t, "run", "--seed", "1", "--checks", "3", "--workers", "1", "--format", "json",
		"--sut", "mcp:"+py+" "+script+" logs", "--tree-dir", t.TempDir(), "--out", t.TempDir())
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
