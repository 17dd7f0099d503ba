package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/reports"
)

// zeroCell empties the cell confinement × traversal of r's JSON and loads
// it back as a report of the given number of checks.
func zeroCell(t *testing.T, r *reports.Report, checks int) *reports.Report {
	t.Helper()
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(r); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	delete(m["invariants"].([]any)[1].(map[string]any)["by_class"].(map[string]any), "traversal")
	m["checks"] = checks
	b.Reset()
	if err := json.NewEncoder(&b).Encode(m); err != nil {
		t.Fatal(err)
	}
	out, err := reports.Load(&b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFullIsTheDefaultCampaign(t *testing.T) {
	for _, c := range []struct {
		checks int
		full   bool
	}{{1, false}, {1000, false}, {reports.FullChecks - 1, false}, {reports.FullChecks, true}, {10 * reports.FullChecks, true}} {
		r := handMadeOf(t, c.checks, oneGap, nil)
		if r.Full() != c.full {
			t.Errorf("%d checks: Full() = %v, want %v", c.checks, r.Full(), c.full)
		}
	}
}

// TestShortCampaignSaysNotHit: in a campaign shorter than the default, a
// cell or a point no check reached for no known reason is "not hit in N
// checks", in every form of the report, and nothing calls it a gap or
// blames the generators for it.
func TestShortCampaignSaysNotHit(t *testing.T) {
	r := zeroCell(t, handMadeOf(t, 1000, oneGap, nil), 1000)
	if r.Full() {
		t.Fatal("a report of 1000 checks is full")
	}
	text := render(t, r, reports.Text)
	md := render(t, r, reports.Markdown)
	for _, out := range []string{text, md} {
		for _, bad := range []string{"GAP", "WARNING", "UNEXPLAINED", "unexplained:", "1 unexplained", "a case the generators should make"} {
			if strings.Contains(out, bad) {
				t.Errorf("a short campaign's report says %q:\n%s", bad, out)
			}
		}
		for _, want := range []string{
			"gaps, 1 not hit in 1000 checks", // the headline counts the empty cell as not hit
			"A short campaign (1000 checks; the default is 10000)",
			"not hit in 1000 checks: traversal", // the invariants table
			"the generators' fault",             // only in saying what a full campaign would call it
		} {
			if !strings.Contains(out, want) {
				t.Errorf("a short campaign's report lacks %q:\n%s", want, out)
			}
		}
	}
	for _, cells := range [][]string{
		{"confinement", "traversal", "not hit in 1000 checks"}, // the gaps table
		{"budget", "max_ops", "5", "5", "4", "0", "not hit: 1"},
		{"budget", "max_ops", "max int64", "not hit in 1000 checks"},
	} {
		if !hasRow(text, cells...) {
			t.Errorf("no row %q:\n%s", cells, text)
		}
	}
	if !regexp.MustCompile(`│ traversal +│ [^│]+│ +0 │`).MatchString(text) {
		t.Errorf("the matrix does not show the empty confinement × traversal cell as 0:\n%s", text)
	}
	var js bytes.Buffer
	if err := r.Write(&js, reports.JSON); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"explanation": "not hit in 1000 checks"`) || strings.Contains(js.String(), `"explanation": "unexplained"`) {
		t.Errorf("the JSON does not say not hit in 1000 checks")
	}
	var svg bytes.Buffer
	if err := r.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{">GAP<", "GAP:", "an unexplained gap"} {
		if strings.Contains(svg.String(), bad) {
			t.Errorf("a short campaign's heat map says %q", bad)
		}
	}
	for _, want := range []string{"confinement × traversal: 0 checks — not hit in 1000 checks", "budget max_ops: max int64: 0 hits — not hit in 1000 checks", "1 not hit in 1000 checks"} {
		if !strings.Contains(svg.String(), want) {
			t.Errorf("a short campaign's heat map lacks %q", want)
		}
	}
}

// TestFullCampaignCallsItAGap: the same report with the checks of the
// default campaign calls the same cell and point GAPs, the generators'
// fault.
func TestFullCampaignCallsItAGap(t *testing.T) {
	r := zeroCell(t, handMadeOf(t, 1000, oneGap, nil), reports.FullChecks)
	text := render(t, r, reports.Text)
	for _, want := range []string{"1 UNEXPLAINED", "WARNING: 1 unexplained gap", "UNEXPLAINED: TRAVERSAL", "a case the generators should make"} {
		if !strings.Contains(text, want) {
			t.Errorf("a full campaign's report lacks %q:\n%s", want, text)
		}
	}
	for _, cells := range [][]string{
		{"confinement", "traversal", "UNEXPLAINED"},
		{"budget", "max_ops", "max int64", "GAP"},
	} {
		if !hasRow(text, cells...) {
			t.Errorf("no row %q:\n%s", cells, text)
		}
	}
	if strings.Contains(text, "not hit in") {
		t.Errorf("a full campaign's report says \"not hit in\":\n%s", text)
	}
}

// svgCell matches a cell of the heat map's matrix: its tooltip and label.
var svgCell = regexp.MustCompile(`<title>([a-z-]+ × [a-z-]+): (\d+) checks(?:[^<]*?, (\d+) violations)?[^<]*</title>(?:<rect[^>]*/>)+<text[^>]*>([^<]*)</text>`)

// TestRedCellsShowViolations: a violated cell of the heat map is labelled
// with its violations, not with its checks.
func TestRedCellsShowViolations(t *testing.T) {
	r := hostile(t) // confinement × benign: 2 violations, many more checks
	var b bytes.Buffer
	if err := r.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	red := 0
	for _, m := range svgCell.FindAllStringSubmatch(b.String(), -1) {
		cell, checks, violations, label := m[1], m[2], m[3], m[4]
		if violations == "" {
			if strings.HasPrefix(label, "✗") {
				t.Errorf("%s: labelled %q with no violations", cell, label)
			}
			continue
		}
		red++
		if want := "✗" + violations; label != want {
			t.Errorf("%s: %s checks, %s violations, labelled %q; want %q", cell, checks, violations, label, want)
		}
	}
	if red == 0 {
		t.Fatalf("no violated cell in the heat map:\n%s", b.String())
	}
	if !strings.Contains(b.String(), fmt.Sprintf(">%s<", "✗N")) {
		t.Error("the legend does not say what N counts")
	}
}
