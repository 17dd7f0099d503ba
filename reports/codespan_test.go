package reports_test

import (
	"strings"
	"testing"

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
