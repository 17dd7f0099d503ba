//go:build unix

package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/reports"
)

// TestRunJSONMarksNotApplicable: a real sandbox's run summary names the
// invariants it cannot show, with the reason, and counts no checks for
// them (SPEC §13: never counted as held), as its report does; a report
// made from that summary keeps them n/a.
func TestRunJSONMarksNotApplicable(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := run(t, "run", "--sut", "osroot", "--checks", "30", "--format", "json",
		"--out", filepath.Join(dir, "findings"), "--tree-dir", filepath.Join(dir, "trees"))
	if st != ExitOK {
		t.Fatalf("run --sut osroot: status %d\n%s", st, errs)
	}
	var sum reports.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	checked := map[string]uint64{}
	for _, row := range sum.Invariants {
		checked[row.ID] = row.Checked
	}
	for _, id := range []string{"halt-latched", "output-bounded", "no-internal-egress", "grant-immutable"} {
		if why := sum.NotApplicable[id]; why == "" || checked[id] != 0 {
			t.Errorf("%s: not_applicable %q, checked %d; want a reason and no checks", id, why, checked[id])
		}
	}
	if why := sum.NotApplicable["confinement"]; why != "" || checked["confinement"] == 0 {
		t.Errorf("confinement: not_applicable %q, checked %d; want checks", why, checked["confinement"])
	}
	if sum.KindsNotApplicable["egress_denied"] == "" {
		t.Errorf("kinds_not_applicable lacks egress_denied: %v", sum.KindsNotApplicable)
	}
	st, text, errs := run(t, "report", "--from", writeFile(t, dir, "run.json", out))
	if st != ExitOK || !strings.Contains(text, "n/a: the sandbox has no budgets") {
		t.Errorf("report --from the run's summary: status %d, no budgets n/a:\n%s%s", st, text, errs)
	}
}
