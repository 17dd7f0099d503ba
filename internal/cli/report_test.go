package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// sampleArgs is the command of reports/doc.go's go:generate line, which
// wrote the committed sample report and heat map.
var sampleArgs = []string{"report", "--seed", "1", "--checks", "5000", "--mutants", "--format", "md"}

// comparable drops a rendered report's timing lines and the padding that
// aligns its columns (a timing value may widen one), keeping everything
// that is a function of the seed and the checks.
func comparable(s string) string {
	pad := regexp.MustCompile(` {2,}|-{2,}`)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !reports.IsTimingLine(l) {
			out = append(out, pad.ReplaceAllStringFunc(l, func(m string) string { return m[:1] }))
		}
	}
	return strings.Join(out, "\n")
}

func TestSampleReportIsCurrent(t *testing.T) {
	dir := t.TempDir()
	md, svg := filepath.Join(dir, "REPORT.md"), filepath.Join(dir, "coverage.svg")
	st, _, errs := run(t, append(sampleArgs, "--output", md, "--svg", svg)...)
	if st != ExitOK {
		t.Fatalf("status %d: %s", st, errs)
	}
	const regenerate = "the committed sample is stale: regenerate it with `go generate ./reports` and review the diff"
	for _, f := range []struct{ got, committed string }{{md, "../../reports/REPORT.md"}, {svg, "../../reports/coverage.svg"}} {
		got, err := os.ReadFile(f.got)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f.committed)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(comparable(string(want)), comparable(string(got))); diff != "" {
			t.Errorf("%s mismatch (-committed +now): %s\n%s", f.committed, regenerate, diff)
		}
	}
	report, _ := os.ReadFile(md)
	// Invariants × classes, result kinds and SPEC dimensions alike: the
	// sample leaves no unexplained gap anywhere.
	classes := string(report)
	if !regexp.MustCompile(`\|\s*gaps\s*\|\s*\d+: \d+ explained, 0 unexplained\s*\|`).MatchString(classes) {
		t.Error("the sample report has unexplained gaps: the default campaign must check every invariant wherever it applies")
	}
	for _, bad := range []string{"**GAP**", "**never**", "> [!WARNING]"} {
		if strings.Contains(classes, bad) {
			t.Errorf("the sample report says %q: the default campaign must leave no unexplained gap and reach every kind", bad)
		}
	}
	if !strings.Contains(string(report), "](coverage.svg)") {
		t.Error("the sample report does not show the heat map")
	}
	checkReadmeExcerpt(t, string(report))
}

// checkReadmeExcerpt checks that every row of docs/reports.md's excerpt of the
// sample report is a row of the report, cell for cell.
func checkReadmeExcerpt(t *testing.T, report string) {
	readme, err := os.ReadFile("../../docs/reports.md")
	if err != nil {
		t.Fatal(err)
	}
	_, excerpt, ok := strings.Cut(string(readme), "<!-- excerpt of reports/REPORT.md")
	excerpt, _, ok2 := strings.Cut(excerpt, "<!-- end of excerpt -->")
	if !ok || !ok2 {
		t.Fatal("docs/reports.md has no excerpt of the sample report")
	}
	cells := func(line string) string {
		var out []string
		for _, c := range strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|") {
			out = append(out, strings.TrimSpace(c))
		}
		return strings.Join(out, "|")
	}
	rows := map[string]bool{}
	for _, l := range strings.Split(report, "\n") {
		rows[cells(l)] = true
	}
	n := 0
	for _, l := range strings.Split(excerpt, "\n") {
		if strings.HasPrefix(l, "| `") {
			n++
			if !rows[cells(l)] {
				t.Errorf("docs/reports.md's excerpt of the sample report is stale: %s", l)
			}
		}
	}
	if n == 0 {
		t.Error("docs/reports.md's excerpt of the sample report has no rows")
	}
}

func TestReportJSON(t *testing.T) {
	st, out, errs := run(t, "report", "--seed", "1", "--checks", "400", "--format", "json")
	if st != ExitOK {
		t.Fatalf("status %d: %s", st, errs)
	}
	var doc struct {
		Seed         uint64  `json:"seed"`
		Checks       int     `json:"checks"`
		Ops          uint64  `json:"ops"`
		OpsPerSecond float64 `json:"ops_per_second"`
		Invariants   []struct {
			ID         string            `json:"id"`
			Checked    uint64            `json:"checked"`
			Violations *uint64           `json:"violations"`
			ByClass    map[string]uint64 `json:"by_class"`
		} `json:"invariants"`
		Classes []struct {
			ID    string            `json:"id"`
			Ops   uint64            `json:"ops"`
			Kinds map[string]uint64 `json:"kinds"`
		} `json:"classes"`
		Gaps          []reports.Gap          `json:"gaps"`
		Findings      []any                  `json:"findings"`
		Mutants       []any                  `json:"mutants"`
		Dimensions    []any                  `json:"dimensions"`
		DimensionRows []reports.DimensionRow `json:"dimension_rows"`
		DimensionGaps []reports.DimensionGap `json:"dimension_gaps"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seed != 1 || doc.Checks != 400 || doc.Ops == 0 || doc.OpsPerSecond <= 0 || doc.Findings == nil || doc.Mutants != nil {
		t.Fatalf("summary %+v", doc)
	}
	if len(doc.Invariants) != 10 || len(doc.Classes) != len(attack.All()) {
		t.Fatalf("%d invariants, %d classes", len(doc.Invariants), len(doc.Classes))
	}
	for _, inv := range doc.Invariants {
		if inv.Checked == 0 || inv.Violations == nil || len(inv.ByClass) == 0 {
			t.Errorf("invariant %+v", inv)
		}
	}
	for _, c := range doc.Classes {
		if c.Ops == 0 || len(c.Kinds) == 0 {
			t.Errorf("class %+v", c)
		}
	}
	for _, g := range doc.Gaps {
		if g.Invariant == "" || g.Class == "" || g.Explanation == "" {
			t.Errorf("gap %+v", g)
		}
	}
	if !strings.Contains(errs, "sbxfuzz report: seed 1, 400 checks") || !regexp.MustCompile(`, \d+ dimension points unhit \(\d+ not hit in 400 checks\), `).MatchString(errs) {
		t.Errorf("no summary line on stderr: %q", errs)
	}
	// 400 checks is a short campaign: what it did not hit is not a gap.
	if strings.Contains(errs, "UNEXPLAINED") || !regexp.MustCompile(`\nsbxfuzz report: \d+ dimension points not hit in 400 checks, a short campaign: only 10000 checks or more \(the default\) call them gaps\n`).MatchString(errs) {
		t.Errorf("stderr of a short campaign: %q", errs)
	}
	if len(doc.Dimensions) == 0 || len(doc.DimensionRows) == 0 || doc.DimensionGaps == nil {
		t.Errorf("no SPEC dimensions: %d points, %d rows, gaps %v", len(doc.Dimensions), len(doc.DimensionRows), doc.DimensionGaps)
	}
}

// TestDefaultReportHasNoUnexplainedDimensionGap runs `sbxfuzz report` with
// the defaults (seed 1, 10,000 checks, the reference sandbox): it prints
// the SPEC dimension table, and every point no scenario hit is one that
// cannot be hit, explained.
func TestDefaultReportHasNoUnexplainedDimensionGap(t *testing.T) {
	st, out, errs := run(t, "report")
	if st != ExitOK {
		t.Fatalf("status %d: %s", st, errs)
	}
	_, sect, ok := strings.Cut(out, "\nSPEC dimensions\n---------------\n")
	if !ok {
		t.Fatalf("no SPEC dimensions table:\n%s", out)
	}
	rows := 0
	var gaps []string
	for _, l := range strings.Split(sect, "\n") {
		if !strings.HasPrefix(l, "│") {
			continue
		}
		rows++
		if strings.Contains(l, "GAP") || strings.Contains(l, "UNEXPLAINED") {
			gaps = append(gaps, l)
		}
	}
	if len(gaps) > 0 {
		t.Errorf("%d rows of the dimension tables show unexplained gaps, among them:\n%s", len(gaps), strings.Join(gaps[:min(len(gaps), 12)], "\n"))
	}
	if rows < 30 {
		t.Errorf("the dimension tables have %d rows:\n%s", rows, sect)
	}
	if !regexp.MustCompile(`SPEC dimension points hit\s*│ \d+ of \d+; \d+ unhit: \d+ explained, 0 unexplained`).MatchString(out) {
		t.Error("the summary does not say 0 unexplained dimension gaps")
	}
	if !regexp.MustCompile(`, \d+ dimension points unhit \(0 unexplained\), `).MatchString(errs) || strings.Contains(errs, "UNEXPLAINED") {
		t.Errorf("stderr: %s", errs)
	}
}

func TestReportFromOldSummary(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := run(t, "run", "--seed", "3", "--checks", "100", "--format", "json", "--out", dir)
	if st != ExitOK {
		t.Fatalf("run: status %d: %s", st, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m["dimensions"] == nil {
		t.Fatal("sbxfuzz run wrote no dimension points")
	}
	delete(m, "dimensions") // as a summary saved before they were counted
	old, _ := json.Marshal(m)
	st, text, errs := run(t, "report", "--from", writeFile(t, dir, "old.json", string(old)))
	if st != ExitOK {
		t.Fatalf("report --from: status %d: %s", st, errs)
	}
	if !strings.Contains(text, "SPEC dimensions\n---------------\n\nNot counted: this summary carries no SPEC dimension points") || strings.Contains(text, "Dimension gaps") {
		t.Errorf("report of an old summary:\n%s", text)
	}
	if !strings.Contains(errs, ", no dimension points (not in the summary), ") {
		t.Errorf("stderr: %s", errs)
	}
}

func TestReportFromSavedSummary(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := run(t, "run", "--seed", "3", "--checks", "300", "--format", "json", "--out", dir)
	if st != ExitOK {
		t.Fatalf("run: status %d: %s", st, errs)
	}
	saved := writeFile(t, dir, "run.json", out)
	st, fromFile, errs := run(t, "report", "--from", saved, "--format", "md")
	if st != ExitOK {
		t.Fatalf("report --from: status %d: %s", st, errs)
	}
	st, direct, _ := run(t, "report", "--seed", "3", "--checks", "300", "--format", "md")
	if st != ExitOK {
		t.Fatalf("report: status %d", st)
	}
	if diff := cmp.Diff(comparable(direct), comparable(fromFile)); diff != "" {
		t.Errorf("report of a saved run mismatch (-same campaign +saved run):\n%s", diff)
	}
	if !strings.Contains(fromFile, "## SPEC dimensions") || !strings.Contains(fromFile, "| `budget`") {
		t.Error("the report of a saved run has no SPEC dimension table")
	}
	// A report's own JSON reads back too, and a violation exits 1.
	st, js, _ := run(t, "report", "--seed", "1", "--checks", "200", "--sut", "mutant:no-boundary", "--format", "json")
	if st != ExitFinding {
		t.Fatalf("report on a mutant: status %d, want 1", st)
	}
	own := writeFile(t, dir, "report.json", js)
	if st, text, errs := run(t, "report", "--from", own); st != ExitFinding || !strings.Contains(text, "WARNING") {
		t.Errorf("report --from its own JSON: status %d %s\n%s", st, errs, text)
	}
}

func TestReportWritesHeatMap(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "map.svg")
	if st, _, errs := run(t, "report", "--checks", "100", "--svg", svg); st != ExitOK {
		t.Fatalf("status %d: %s", st, errs)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !strings.HasPrefix(string(b), "<?xml") || !strings.HasSuffix(string(b), "</svg>\n") {
		t.Fatalf("heat map: %v %.80q", err, b)
	}
}

func TestReportBadUsageExits2(t *testing.T) {
	dir := t.TempDir()
	notJSON := writeFile(t, dir, "x.json", "grant fs_read /work/\n")
	// A second name for dir, through a link: the same file by another path.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(dir, alias); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		reason string
		args   []string
		want   string
	}{
		{"--from with --seed", []string{"report", "--from", notJSON, "--seed", "2"}, "cannot be combined with --seed"},
		{"--from with --mutants", []string{"report", "--from", notJSON, "--mutants"}, "--mutants"},
		{"not a summary", []string{"report", "--from", notJSON}, "x.json: not a campaign summary"},
		{"missing file", []string{"report", "--from", filepath.Join(dir, "nope.json")}, "no such file"},
		{"bad format", []string{"report", "--format", "xml"}, "--format"},
		{"negative checks", []string{"report", "--checks", "-1"}, "--checks -1: want a positive number"},
		{"unknown sut", []string{"report", "--sut", "mutant:nope"}, "unknown mutant"},
		{"extra argument", []string{"report", "extra"}, "unexpected argument"},
		// One file for both would keep the report and lose the heat map.
		{"--svg is --output", []string{"report", "--from", notJSON, "--output", filepath.Join(dir, "r.md"), "--svg", filepath.Join(dir, ".", "r.md")}, "--svg: " + filepath.Join(dir, "r.md") + ": the file --output names"},
		{"--svg is --output through a link", []string{"report", "--from", notJSON, "--output", filepath.Join(dir, "r.md"), "--svg", filepath.Join(alias, "r.md")}, "the file --output names"},
		{"--svg is the summary --from reads", []string{"report", "--from", notJSON, "--output", filepath.Join(dir, "r.md"), "--svg", filepath.Join(alias, "x.json")}, "--svg: " + filepath.Join(alias, "x.json") + ": the summary --from reads"},
		{"--output is the summary --from reads", []string{"report", "--from", notJSON, "--output", notJSON}, "--output: " + notJSON + ": the summary --from reads"},
	} {
		st, _, errs := run(t, c.args...)
		if st != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: status %d, stderr %q lacks %q", c.reason, st, errs, c.want)
		}
	}
}

func TestMutantsRendersThroughReports(t *testing.T) {
	st, out, errs := run(t, "mutants", "--mutant", "raw-prefix", "--checks", "200", "--format", "md")
	if st != ExitOK {
		t.Fatalf("status %d: %s", st, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "|:--") || !strings.HasPrefix(lines[2], "| `raw-prefix`") {
		t.Fatalf("kill table:\n%s", out)
	}
	for _, col := range []string{"mutant", "killed", "invariant", "checks", "seconds", "reproducer ops"} {
		if !strings.Contains(lines[0], " "+col+" ") {
			t.Errorf("header lacks %q: %s", col, lines[0])
		}
	}
}

// TestReportLinksItsHeatMapHoweverNamed: the Markdown report links the
// heat map by its path from the report's directory, whether the two are
// named by relative or absolute paths (one of each dropped the link).
func TestReportLinksItsHeatMapHoweverNamed(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := run(t, "run", "--checks", "5", "--format", "json", "--out", filepath.Join(dir, "findings"))
	if st != ExitOK {
		t.Fatalf("run: status %d\n%s", st, errs)
	}
	saved := writeFile(t, dir, "saved.json", out)
	t.Chdir(dir)
	for _, c := range []struct{ output, svg string }{
		{"a.md", filepath.Join(dir, "a.svg")},
		{filepath.Join(dir, "b.md"), "b.svg"},
		{"c.md", "c.svg"},
	} {
		if st, _, errs := run(t, "report", "--from", saved, "--format", "md", "--output", c.output, "--svg", c.svg); st != ExitOK {
			t.Fatalf("report --output %s --svg %s: status %d\n%s", c.output, c.svg, st, errs)
		}
		md, err := os.ReadFile(filepath.Join(dir, filepath.Base(c.output)))
		if err != nil {
			t.Fatal(err)
		}
		if want := "](" + filepath.Base(c.svg) + ")"; !strings.Contains(string(md), want) {
			t.Errorf("--output %s --svg %s: the report does not link %s", c.output, c.svg, want)
		}
	}
}

// TestSameFileFoldsCaseWhereTheDiskDoes: --output R.md --svg r.md name one
// file on a disk that folds case (macOS's, Windows'), two elsewhere; the
// probe that tells leaves nothing behind.
func TestSameFileFoldsCaseWhereTheDiskDoes(t *testing.T) {
	dir := t.TempDir()
	upper, lower := filepath.Join(dir, "R.md"), filepath.Join(dir, "r.md")
	probe := foldsCase
	t.Cleanup(func() { foldsCase = probe })
	for _, folds := range []bool{true, false} {
		foldsCase = func(string) bool { return folds }
		if got := sameFile(upper, lower); got != folds {
			t.Errorf("on a disk that folds case %v: sameFile(R.md, r.md) = %v", folds, got)
		}
		if sameFile(upper, filepath.Join(dir, "s.md")) {
			t.Errorf("on a disk that folds case %v: R.md and s.md are one file", folds)
		}
	}
	foldsCase = probe
	if err := os.WriteFile(lower, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := os.Stat(upper)
	if got, want := foldsCase(dir), err == nil; got != want {
		t.Errorf("foldsCase = %v, but this disk finds r.md as R.md: %v", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the probe left files behind: %v", entries)
	}
}
