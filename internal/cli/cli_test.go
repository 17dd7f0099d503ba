package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	for _, want := range []string{"STEP", "fs_read /work/../etc/shadow", "path_traversal", "resolve api.internal -> 203.0.113.1", "max_ops", "8 steps, ok"} {
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
	if len(doc.Steps) != 8 || len(doc.Journal) != 4 || doc.Violations == nil {
		t.Fatalf("steps %d journal %d violations %v", len(doc.Steps), len(doc.Journal), doc.Violations)
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
		{"directory", []string{"replay", dir}, "is a directory"},
		{"binary file", []string{"replay", writeFile(t, dir, "bin.sbx", "\x00\x01\xffjunk")}, "bin.sbx:1: not a text file"},
		{"100 MB file", []string{"replay", big}, "file too large"},
		{"parse error", []string{"replay", writeFile(t, dir, "bad.sbx", "fs_read /w\ngrant fs_read /x\n")}, "bad.sbx:2:"},
		{"invalid grant", []string{"replay", writeFile(t, dir, "g.sbx", "grant fs_read relative\n")}, "g.sbx:1:"},
		{"unknown flag", []string{"replay", "--nope", trace}, "not defined"},
		{"bad format", []string{"replay", "--format", "xml", trace}, "--format"},
		{"unknown sut", []string{"replay", "--sut", "mutant:nope", trace}, "unknown mutant"},
		{"no files", []string{"replay"}, "no files"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"fmt of a broken file", []string{"fmt", filepath.Join(dir, "bad.sbx")}, "bad.sbx:2:"},
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
	if string(got) != want {
		t.Fatalf("fmt -w wrote\n%q\nwant\n%q", got, want)
	}
	if st, out, _ := run(t, "fmt", "-l", p); st != ExitOK || out != "" {
		t.Fatalf("fmt -l after -w: %d %q", st, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("fmt -w left %d files behind", len(entries))
	}
}
