package reports_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// A code span outside a table shows its text as it is: a "\|" there is a
// backslash and a bar, so a reproduce line copied from the rendered
// Markdown would name another sandbox than the text report's.
func TestMarkdownCodeOutsideTablesIsLiteral(t *testing.T) {
	r := hostile(t)
	text, md := render(t, r, reports.Text), render(t, r, reports.Markdown)
	var cmd string
	for _, l := range strings.Split(text, "\n") {
		if c, ok := strings.CutPrefix(l, "Reproduce with "); ok {
			cmd = strings.TrimSuffix(c, ".")
		}
	}
	if !strings.Contains(cmd, "mutant:a|b`c") {
		t.Fatalf("the text report's reproduce line is %q: it lacks the sandbox", cmd)
	}
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "Reproduce with ") {
			if want := "Reproduce with `` " + cmd + " ``."; l != want {
				t.Errorf("Markdown reproduce line:\n got %s\nwant %s", l, want)
			}
			return
		}
	}
	t.Error("the Markdown has no reproduce line")
}

// TestCodeSpanFenceOutrunsTheData: a code span's fence is longer than any
// run of backquotes in its text, so a sandbox named with two backquotes
// in a row is shown whole, not cut where they would close a fence of two.
func TestCodeSpanFenceOutrunsTheData(t *testing.T) {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(campaign.NewReport(campaignResult(t, 1), "exec:sh -c \"echo ``a|b``\"")); err != nil {
		t.Fatal(err)
	}
	r, err := reports.Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(render(t, r, reports.Markdown), "\n") {
		if strings.HasPrefix(l, "Reproduce with ") {
			if !strings.HasPrefix(l, "Reproduce with ``` ") || !strings.HasSuffix(l, " ```.") || !strings.Contains(l, "echo ``a|b``") {
				t.Errorf("Markdown reproduce line %s: want the command whole in a fence of three backquotes", l)
			}
			return
		}
	}
	t.Error("the Markdown has no reproduce line")
}
