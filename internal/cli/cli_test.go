package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/reports"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// run runs the command line and returns its status and outputs.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := Main(args, &out, &errb, func(string) string { return "" })
	return st, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const trace = "../../corpus/worked_trace.sbx"

func TestReplayWorkedTrace(t *testing.T) {
	st, out, errs := run(t, "replay", trace)
	if st != ExitOK {
		t.Fatalf("status %d, stderr %s", st, errs)
	}
	for _, want := range []string{"STEP", "fs_read /work/../etc/shadow", "path_traversal", "realpath /work/data.txt -> /work/data.txt; read /work/data.txt",
		"resolve api.internal -> 203.0.113.1", "max_ops", "8 steps, ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestReplayJSONFields(t *testing.T) {
	st, out, _ := run(t, "replay", "--format", "json", trace)
	if st != ExitOK {
		t.Fatalf("status %d", st)
	}
	var doc struct {
		Steps      []map[string]any `json:"steps"`
		Journal    []string         `json:"journal"`
		Violations []any            `json:"violations"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Steps) != 8 || len(doc.Journal) != 6 || doc.Violations == nil {
		t.Fatalf("steps %d journal %d violations %v", len(doc.Steps), len(doc.Journal), doc.Violations)
	}
	wantJournal := []string{
		"realpath /work/data.txt -> /work/data.txt", "read /work/data.txt",
		"realpath /work/out/report.txt -> /work/out/report.txt", "write /work/out/report.txt done",
		"resolve api.internal -> 203.0.113.1", "fetch api.internal 203.0.113.1 /status",
	}
	if !slices.Equal(doc.Journal, wantJournal) {
		t.Errorf("journal %q, want %q", doc.Journal, wantJournal)
	}
	for _, k := range []string{"step", "op", "kind", "hard", "data", "ops_used", "wall_used", "output_used"} {
		if _, ok := doc.Steps[0][k]; !ok {
			t.Errorf("step lacks %q", k)
		}
	}
	if doc.Steps[7]["kind"] != "max_ops" || doc.Steps[7]["hard"] != true {
		t.Errorf("step 8 = %v", doc.Steps[7])
	}
}

func TestReplayUnmetExpectationExits1(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "wrong.sbx", "grant fs_read /work/\nfile /work/a x\n\nfs_read /work/a => ok y\nfs_read /workshop/a => ok\n")
	st, out, _ := run(t, "replay", p)
	if st != ExitFinding {
		t.Fatalf("status %d, want 1:\n%s", st, out)
	}
	for _, want := range []string{"wrong.sbx:4: step 1", "got ok x, want ok y", "wrong.sbx:5: step 2", "got fs_read_denied, want ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestBadInputExits2(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.sbx")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct {
		reason string
		args   []string
		want   string
	}{
		{"missing file", []string{"replay", filepath.Join(dir, "nope.sbx")}, "no such file"},
		{"directory", []string{"replay", dir}, "is a directory (use " + filepath.Join(dir, "...")},
		{"directory named with a slash", []string{"replay", dir + "/"}, "is a directory (use " + filepath.Join(dir, "...")},
		{"binary file", []string{"replay", writeFile(t, dir, "bin.sbx", "\x00\x01\xffjunk")}, "bin.sbx:1: not a text file"},
		{"100 MB file", []string{"replay", big}, "file too large"},
		{"parse error", []string{"replay", writeFile(t, dir, "bad.sbx", "fs_read /w\ngrant fs_read /x\n")}, "bad.sbx:2:"},
		{"invalid grant", []string{"replay", writeFile(t, dir, "g.sbx", "grant fs_read relative\n")}, "g.sbx:1:"},
		{"unknown flag", []string{"replay", "--nope", trace}, "not defined"},
		{"bad format", []string{"replay", "--format", "xml", trace}, "--format"},
		{"unknown sut", []string{"replay", "--sut", "mutant:nope", trace}, "unknown mutant"},
		{"a profile for a door without one", []string{"run", "--checks", "1", "--profile", "egressproxy"}, "only the mcp: and proxy: doors take a profile"},
		{"an empty --out", []string{"run", "--checks", "1", "--out", ""}, "--out: an empty directory name"},
		{"a negative --progress", []string{"run", "--checks", "1", "--progress", "-1s"}, "must not be negative"},
		{"a --progress of no duration", []string{"report", "--checks", "1", "--progress", "often"}, "want a duration"},
		{"an empty --out to import", []string{"import", "--out", "", trace}, "--out: an empty directory name"},
		{"no files", []string{"replay"}, "no files"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"fmt of a broken file", []string{"fmt", filepath.Join(dir, "bad.sbx")}, "bad.sbx:2:"},
		{"a go test -fuzz input to replay", []string{"replay", writeFile(t, dir, "a14332e88acee3c6", "go test fuzz v1\n[]byte(\"\\x01\")\n")}, "a go test -fuzz input, not a scenario: import decodes"},
		{"a go test -fuzz input to minimize", []string{"minimize", filepath.Join(dir, "a14332e88acee3c6")}, "(import --sut NAME " + filepath.Join(dir, "a14332e88acee3c6") + ")"},
	} {
		st, out, errs := run(t, c.args...)
		if st != ExitUsage {
			t.Errorf("%s: status %d, want 2 (stdout %q)", c.reason, st, out)
		}
		if !strings.Contains(errs, c.want) {
			t.Errorf("%s: stderr %q lacks %q", c.reason, errs, c.want)
		}
	}
}

func TestHelpExits0(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"replay", "-h"}, {"fmt", "--help"}} {
		st, out, _ := run(t, args...)
		if st != ExitOK || !strings.Contains(out, "usage:") {
			t.Errorf("%v: status %d, output %q", args, st, out)
		}
	}
}

func TestFmtRewritesAtomicallyAndIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "s.sbx", "# header\ngrant   fs_read   /work/\nfs_read \"/work/a\"   =>   not_found\n")
	if st, _, errs := run(t, "fmt", "-w", p); st != ExitOK {
		t.Fatalf("fmt -w: %d %s", st, errs)
	}
	got, _ := os.ReadFile(p)
	want := "# header\n\ngrant fs_read /work/\n\nfs_read /work/a                               => not_found\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("fmt -w output mismatch (-want +got):\n%s", diff)
	}
	if st, out, _ := run(t, "fmt", "-l", p); st != ExitOK || out != "" {
		t.Fatalf("fmt -l after -w: %d %q", st, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("fmt -w left %d files behind", len(entries))
	}
}

func TestRunReferenceJSON(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := run(t, "run", "--seed", "1", "--checks", "500", "--format", "json", "--out", dir)
	if st != ExitOK {
		t.Fatalf("status %d: %s", st, errs)
	}
	var doc struct {
		Seed         uint64  `json:"seed"`
		Checks       int     `json:"checks"`
		Ops          uint64  `json:"ops"`
		OpsPerSecond float64 `json:"ops_per_second"`
		Findings     []any   `json:"findings"`
		Invariants   []struct {
			ID      string            `json:"id"`
			Checked uint64            `json:"checked"`
			ByClass map[string]uint64 `json:"by_class"`
		} `json:"invariants"`
		Classes []struct {
			ID  string `json:"id"`
			Ops uint64 `json:"ops"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seed != 1 || doc.Checks != 500 || doc.Ops == 0 || doc.OpsPerSecond <= 0 || doc.Findings == nil || len(doc.Findings) != 0 {
		t.Fatalf("summary %+v", doc)
	}
	if len(doc.Invariants) != 10 || len(doc.Classes) != len(attack.All()) {
		t.Fatalf("%d invariants, %d classes", len(doc.Invariants), len(doc.Classes))
	}
	if !strings.Contains(errs, "sbxfuzz run: seed 1, 500 checks") {
		t.Errorf("no summary line on stderr: %q", errs)
	}
}

func TestRunMutantFindsAndWrites(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := run(t, "run", "--seed", "1", "--checks", "300", "--sut", "mutant:no-boundary", "--out", dir)
	if st != ExitFinding {
		t.Fatalf("status %d, want 1: %s", st, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.sbx"))
	if len(files) == 0 || !strings.Contains(out, files[0]) {
		t.Fatalf("findings %v, output %q", files, out)
	}
	// The written finding replays: it fails on the mutant, passes on the reference.
	if st, _, _ := run(t, "replay", "--sut", "mutant:no-boundary", files[0]); st != ExitFinding {
		t.Errorf("replay on the mutant: status %d", st)
	}
	if st, _, errs := run(t, "replay", files[0]); st != ExitOK {
		t.Errorf("replay on the reference: status %d %s", st, errs)
	}
}

func TestMinimizeCommand(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "leak.sbx", "grant fs_read /work\nfile /work/a x\nfile /workshop/s leak\n\nfs_read /work/a\nfs_read /workshop/s\nfs_read /work/a\n")
	st, out, errs := run(t, "minimize", "--sut", "mutant:raw-prefix", p)
	if st != ExitFinding {
		t.Fatalf("status %d: %s", st, errs)
	}
	if strings.Count(out, "\nfs_read ") != 1 || !strings.Contains(out, "fs_read /works ") || strings.Contains(out, "file ") {
		t.Fatalf("minimized to\n%s", out)
	}
	// -w on a finding file named relative: its reproduce line names it
	// absolute, as a campaign's do, to replay from any directory.
	found := writeFile(t, dir, "found.sbx", "# finding: confinement\n# reproduce: sbxfuzz replay --sut mutant:raw-prefix found.sbx\n"+
		"grant fs_read /work\nfile /work/a x\nfile /workshop/s leak\n\nfs_read /work/a\nfs_read /workshop/s\n")
	t.Chdir(dir)
	if st, _, errs := run(t, "minimize", "--sut", "mutant:raw-prefix", "-w", "found.sbx"); st != ExitFinding {
		t.Fatalf("minimize -w: status %d: %s", st, errs)
	}
	data, err := os.ReadFile(found)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# reproduce: sbxfuzz replay --sut mutant:raw-prefix " + found + "\n"; !strings.Contains(string(data), want) {
		t.Errorf("minimize -w wrote\n%s\nwant a line %q", data, want)
	}
	if st, _, _ := run(t, "minimize", p); st != ExitOK {
		t.Errorf("minimize on the reference: status %d, want 0 (nothing to do)", st)
	}
	if st, _, _ := run(t, "minimize", "--invariant", "nope", p); st != ExitUsage {
		t.Errorf("unknown invariant: status %d", st)
	}
}

// TestMinimizeKeepsTheCause: minimizing again a campaign's finding whose
// header names its cause shrinks it to that cause, as the campaign began
// it (the read below a link stays one; left free, it shrinks to the
// read of the link itself), and the header names the cause.
func TestMinimizeKeepsTheCause(t *testing.T) {
	body := "grant fs_read /work\nlink /work/ln /etc\nfile /etc/passwd root\n\nfs_read /work/ln/passwd\n"
	for _, tc := range []struct{ header, want, cause string }{
		{"", "fs_read /work/ln ", ""},
		{"# finding: confinement\n# sandbox: mutant:no-realpath; seed 1, check 2; class of the violating op: symlink-escape; cause: fs_read, below a link under a root\n",
			"fs_read /work/ln/", "cause: fs_read, below a link under a root"},
	} {
		f := writeFile(t, t.TempDir(), "f.sbx", tc.header+body)
		st, out, errs := run(t, "minimize", "--sut", "mutant:no-realpath", f)
		if st != ExitFinding {
			t.Fatalf("status %d: %s", st, errs)
		}
		if !strings.Contains(out, "\n"+tc.want) || !strings.Contains(out, tc.cause) {
			t.Errorf("header %q: minimized to\n%s\nwant an op %q and %q", tc.header, out, tc.want, tc.cause)
		}
	}
}

// TestMinimizeKeepsTheHeadersInvariant: a finding file is minimized for
// the invariant its header names, not the first one the oracle finds at
// its op (a lookup before the allow-list breaks no-effect-on-denial
// first, then confinement).
func TestMinimizeKeepsTheHeadersInvariant(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{"", "no-effect-on-denial: 1 ops minimized"},
		{"# finding: confinement\n", "confinement: 1 ops minimized"},
		{"# finding: no-such-invariant\n", "no-effect-on-denial: 1 ops minimized"},
		// Fixed for the header's invariant, failing another: no pass.
		{"# finding: no-internal-egress\n", "no-internal-egress, which its header names, fails no more; minimizing for no-effect-on-denial, the first found"},
	} {
		f := writeFile(t, t.TempDir(), "f.sbx", tc.header+"\nnet_fetch e /\n")
		st, _, errs := run(t, "minimize", "--sut", "mutant:lookup-before-allowlist", f)
		if st != ExitFinding || !strings.Contains(errs, tc.want) {
			t.Errorf("header %q: status %d, stderr %q, want %q", tc.header, st, errs, tc.want)
		}
	}
	// -w leaves a file whose header's invariant fails no more as it is.
	src := "# finding: no-internal-egress\n\nnet_fetch e /\n"
	f := writeFile(t, t.TempDir(), "f.sbx", src)
	st, _, errs := run(t, "minimize", "--sut", "mutant:lookup-before-allowlist", "-w", f)
	if data, _ := os.ReadFile(f); st != ExitFinding || string(data) != src || !strings.Contains(errs, "not rewritten (--invariant no-effect-on-denial minimizes for it)") {
		t.Errorf("-w: status %d, stderr %q, the file now %q", st, errs, data)
	}
}

func TestRunBadFlagsExit2(t *testing.T) {
	for _, args := range [][]string{{"run", "--checks", "-1"}, {"run", "--sut", "nope"}, {"run", "--format", "md"}, {"run", "extra"}, {"run", "--duration", "xyz"}} {
		if st, _, _ := run(t, args...); st != ExitUsage {
			t.Errorf("%v: status %d, want 2", args, st)
		}
	}
}

// TestExtraTargets: a sandbox registered with Main is a --sut value like
// the built-in ones, and an unknown name lists it.
func TestExtraTargets(t *testing.T) {
	readsEverything := func(g core.Grant, w core.World) (core.Sandbox, error) {
		wide := must.Grant(core.GrantSpec{FSRead: []string{"/"}, Budgets: g.Budgets()})
		return core.NewReference(wide, w), nil
	}
	extra := sut.Static("wide-open", readsEverything)
	p := writeFile(t, t.TempDir(), "leak.sbx", "grant fs_read /work/\nfile /etc/passwd root\n\nfs_read /etc/passwd\n")
	main := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		st := Main(args, &out, &errb, func(string) string { return "" }, extra)
		return st, out.String() + errb.String()
	}
	if st, out := main("replay", "--sut", "wide-open", p); st != ExitFinding {
		t.Errorf("replay on the extra sandbox: status %d, want 1\n%s", st, out)
	}
	if st, out := main("replay", p); st != ExitOK {
		t.Errorf("replay on the reference: status %d, want 0\n%s", st, out)
	}
	if st, out := main("replay", "--sut", "nope", p); st != ExitUsage || !strings.Contains(out, `"wide-open"`) {
		t.Errorf("replay on an unknown sandbox: status %d, want 2 and a list naming \"wide-open\"\n%s", st, out)
	}
}

// TestCommittedCorpusIsCanonical: every committed scenario is in canonical
// form, as CI checks with `sbxfuzz fmt -l corpus/...`: a comment placed
// where fmt would move it, or hand-aligned text, fails here first.
func TestCommittedCorpusIsCanonical(t *testing.T) {
	st, out, errs := run(t, "fmt", "-l", "../../corpus/...")
	if st != ExitOK || out != "" {
		t.Errorf("fmt -l corpus/...: status %d, stderr %q; not canonical (rewrite with sbxfuzz fmt -w):\n%s", st, errs, out)
	}
	files, err := filepath.Glob("../../corpus/*/*.sbx")
	if err != nil || len(files) < 50 {
		t.Fatalf("the corpus has %d scenarios below it (%v): the glob no longer finds it", len(files), err)
	}
}

// TestReplayNotesWhereAFindingWasFound: a finding file replayed without
// --sut runs on the reference, and stderr says on which sandbox it was
// found and that its reproduce line replays it there; with --sut, or on
// the sandbox it was found on, nothing is said. A name holding "; " (a
// shell line) is read whole.
func TestReplayNotesWhereAFindingWasFound(t *testing.T) {
	dir := t.TempDir()
	header := "# finding: no-internal-egress\n# sandbox: %s; seed 1, check 3; class of the violating op: lookalike\n# reproduce: sbxfuzz replay F\ngrant net a.test\n\nnet_fetch a.test /\n"
	found := writeFile(t, dir, "f.sbx", fmt.Sprintf(header, "mutant:raw-prefix"))
	_, _, errs := run(t, "replay", found)
	if want := "note: " + found + " was found on mutant:raw-prefix; this replays it on reference"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	for _, args := range [][]string{{"replay", "--sut", "reference", found}, {"replay", writeFile(t, dir, "r.sbx", fmt.Sprintf(header, "reference"))}, {"replay", trace}} {
		if _, _, errs := run(t, args...); strings.Contains(errs, "note:") {
			t.Errorf("%v: stderr %q, want no note", args, errs)
		}
	}
	sc, err := scenario.Parse("s.sbx", []byte(fmt.Sprintf(header, "exec:sh -c 'a; b'")))
	if err != nil {
		t.Fatal(err)
	}
	if got := foundOn(sc); got != "exec:sh -c 'a; b'" {
		t.Errorf("foundOn = %q, want the whole command line", got)
	}
}

// TestDistinctScenariosClause: the summary line counts the findings'
// distinct scenarios when fewer than the findings, in the singular for
// one.
func TestDistinctScenariosClause(t *testing.T) {
	three := []reports.Finding{{}, {}, {}}
	for _, tc := range []struct {
		distinct int
		want     string
	}{{3, ""}, {2, " (2 distinct scenarios)"}, {1, " (1 distinct scenario)"}} {
		if got := distinctScenarios(reports.Summary{Findings: three, DistinctScenarios: tc.distinct}); got != tc.want {
			t.Errorf("%d of 3: %q, want %q", tc.distinct, got, tc.want)
		}
	}
}

// TestRelativeOutIsMadeAbsolute: findings written under a relative --out
// name themselves by absolute paths, in the summary and in each header's
// reproduce line, which then replays from any directory.
func TestRelativeOutIsMadeAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	st, out, errs := run(t, "run", "--sut", "mutant:raw-prefix", "--checks", "20", "--workers", "1", "--out", "rel")
	if st != ExitFinding {
		t.Fatalf("status %d: %s", st, errs)
	}
	abs := filepath.Join(dir, "rel") + string(filepath.Separator)
	if !strings.Contains(errs, "written to "+filepath.Join(dir, "rel")) || !strings.HasPrefix(out, abs) {
		t.Errorf("summary names the directory as given:\n%s\n%s", errs, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "rel", "*.sbx"))
	if len(files) == 0 {
		t.Fatal("no finding written")
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), " "+filepath.ToSlash(files[0])+"\n") {
		t.Errorf("%s: its reproduce line does not name it by its absolute path:\n%s", files[0], data)
	}
}

// TestTwinFindingsSayTheirOp: a campaign's verdict-matches-model finding
// at the op another invariant's finding is at names that finding on its
// line (one defect, seen twice); one at an op of its own names none.
func TestTwinFindingsSayTheirOp(t *testing.T) {
	dir := t.TempDir()
	_, out, errs := run(t, "run", "--sut", "mutant:raw-prefix", "--checks", "20", "--workers", "1", "--out", dir)
	conf := filepath.Join(dir, "confinement-83b9f42b0625cebd.sbx")
	twin := filepath.Join(dir, "verdict-matches-model-83b9f42b0625cebd.sbx") + ": verdict-matches-model (check 10, class prefix-sibling [fs_read, a prefix sibling of a root], 15 ops minimized to 1; the same op as confinement's " + conf + ")"
	alone := filepath.Join(dir, "verdict-matches-model-aa2c00e7bb158d3a.sbx") + ": verdict-matches-model (check 13, class dot-segments, 25 ops minimized to 1)\n"
	for _, want := range []string{twin, alone} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's lines lack %q:\n%s%s", want, out, errs)
		}
	}
}

// TestFindingsNotedAsWritten: with progress shown, each finding file is
// named on stderr as it is written, before the summary lists it on stdout
// at the end: a log read while the campaign runs shows what was found.
func TestFindingsNotedAsWritten(t *testing.T) {
	dir := t.TempDir()
	_, out, errs := run(t, "run", "--sut", "mutant:raw-prefix", "--checks", "20", "--workers", "1", "--progress", "1h", "--out", dir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.sbx"))
	var findings []string
	for _, f := range files {
		if !strings.Contains(filepath.Base(f), "stricter") {
			findings = append(findings, f)
		}
	}
	if len(findings) == 0 {
		t.Fatalf("no finding written:\n%s%s", out, errs)
	}
	for _, f := range findings {
		if !strings.Contains(errs, "sbxfuzz: progress: wrote "+f+": ") {
			t.Errorf("stderr does not name %s as written:\n%s", f, errs)
		}
	}
}

// TestProgressAndNotesShareStderr: the campaign's progress and its
// written notes, from two goroutines, reach one writer whole and without
// a race (go test -race), through lockedWriter.
func TestProgressAndNotesShareStderr(t *testing.T) {
	var buf bytes.Buffer
	w := &lockedWriter{w: &buf}
	progress, note := progressReporter(w, true, 0), writtenNote(w, true)
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 200 {
			progress(campaign.Progress{Checks: 1, Elapsed: time.Second})
		}
	})
	for range 200 {
		note(campaign.Finding{Path: "f.sbx", Finding: new(finding.Finding)})
	}
	wg.Wait()
	if n := strings.Count(buf.String(), "wrote f.sbx"); n != 200 {
		t.Errorf("%d notes whole, want 200", n)
	}
}

// TestProgressLine: the progress line says how many findings are written
// and how many are still to minimize, while the checks run (a count of
// the written alone read as 2 where the run wrote 9) and once they are
// over (a long minimization on a slow sandbox does not read as a stall).
func TestProgressLine(t *testing.T) {
	running := campaign.Progress{Checks: 40, Ops: 360, Findings: 2, Queued: 7, Elapsed: 9 * time.Second}
	if got, want := progressLine(running), "checks 40  ops 360  40 ops/s  findings 2 written, 7 to minimize  elapsed 9s"; got != want {
		t.Errorf("progressLine = %q, want %q", got, want)
	}
	running.Queued = 0
	if got, want := progressLine(running), "checks 40  ops 360  40 ops/s  findings 2  elapsed 9s"; got != want {
		t.Errorf("progressLine = %q, want %q", got, want)
	}
	p := campaign.Progress{Checks: 113, Ops: 1014, Findings: 2, Queued: 3, Elapsed: 70 * time.Second, Checked: 25 * time.Second, ChecksOver: true}
	if got, want := progressLine(p), "checks 113 done in 25s (41 ops/s); minimizing: findings 2 written, 3 to go  elapsed 1m10s"; got != want {
		t.Errorf("progressLine = %q, want %q", got, want)
	}
	p.Queued = 0
	if got := progressLine(p); strings.Contains(got, "to go") {
		t.Errorf("progressLine = %q with nothing left to minimize", got)
	}
}
