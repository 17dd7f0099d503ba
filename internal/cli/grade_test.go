package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// wideOpen is a registered sandbox that reads everything: every check
// that reads outside its grant fails on it, several invariants at once.
var wideOpen = sut.Static("wide-open", func(g core.Grant, w core.World) (core.Sandbox, error) {
	wide := must.Grant(core.GrantSpec{FSRead: []string{"/"}, Budgets: g.Budgets()})
	return core.NewReference(wide, w), nil
})

// runAs runs the command line as MainAs does, with wideOpen registered.
func runAs(program string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	st := MainAs(program, args, &out, &errb, func(string) string { return "" }, wideOpen)
	return st, out.String(), errb.String()
}

type killRow struct {
	Mutant  string `json:"mutant"`
	RedFlag string `json:"red_flag"`
	Killed  bool   `json:"killed"`
	Checks  int    `json:"checks"`
}

func killTable(t *testing.T, out string) []killRow {
	t.Helper()
	var rows []killRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return rows
}

// TestMutantsGradesNamedSandboxes: 'mutants --sut A,B' prints the kill
// table of the sandboxes named, in that order: a mutant killed, with its
// red flag, and the reference surviving every check (exit 1).
func TestMutantsGradesNamedSandboxes(t *testing.T) {
	st, out, errs := run(t, "mutants", "--sut", "mutant:raw-prefix,reference", "--checks", "300", "--format", "json")
	if st != ExitFinding {
		t.Fatalf("status %d, want 1 (the reference survives)\n%s", st, errs)
	}
	rows := killTable(t, out)
	if len(rows) != 2 || rows[0].Mutant != "mutant:raw-prefix" || !rows[0].Killed || rows[0].RedFlag == "" ||
		rows[1].Mutant != "reference" || rows[1].Killed || rows[1].Checks != 300 {
		t.Errorf("kill table %+v, want mutant:raw-prefix killed (with its red flag), reference surviving 300 checks", rows)
	}
	if !strings.Contains(errs, "1 of 2 killed") {
		t.Errorf("summary line: %q", errs)
	}
	st, out, errs = run(t, "mutants", "--sut", "mutant:raw-prefix", "--checks", "300", "--format", "md")
	if st != ExitOK || !strings.Contains(out, "`mutant:raw-prefix`") {
		t.Errorf("one mutant killed: status %d, want 0\n%s%s", st, out, errs)
	}
}

// TestMutantsPatterns: a --sut pattern grades the registered sandboxes
// and the mutants it matches, sorted, each once.
func TestMutantsPatterns(t *testing.T) {
	st, out, errs := runAs("sbxfuzz", "mutants", "--sut", "wide-*,mutant:raw-pre*,wide-open", "--checks", "300", "--format", "json")
	if st != ExitOK {
		t.Fatalf("status %d, want 0 (both killed)\n%s", st, errs)
	}
	rows := killTable(t, out)
	if len(rows) != 2 || rows[0].Mutant != "wide-open" || rows[1].Mutant != "mutant:raw-prefix" || !rows[0].Killed || !rows[1].Killed {
		t.Errorf("kill table %+v, want wide-open and mutant:raw-prefix, both killed", rows)
	}
}

// TestMutantsSUTErrors: a bad --sut list is bad usage, said clearly.
func TestMutantsSUTErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sut", "reference,,mutant:raw-prefix"}, "empty name"},
		{[]string{"--sut", "mine-*"}, `"mine-*" matches no sandbox`},
		{[]string{"--sut", "nope"}, `unknown sandbox "nope"`},
		{[]string{"--sut", "mutant:nope"}, `unknown mutant "nope"`},
		{[]string{"--sut", "reference", "--mutant", "raw-prefix"}, "cannot be combined"},
	} {
		st, _, errs := runAs("sbxfuzz", append([]string{"mutants", "--checks", "10"}, c.args...)...)
		if st != ExitUsage || !strings.HasPrefix(errs, "sbxfuzz: ") || !strings.Contains(errs, c.want) {
			t.Errorf("%v: status %d, stderr %q; want 2 and %q", c.args, st, errs, c.want)
		}
	}
}

// TestRunStopAtFirst: run --stop-at-first writes one finding — the first
// of the sandbox's first failing check, which fails several invariants —
// stops long before its checks are done, and exits 1.
func TestRunStopAtFirst(t *testing.T) {
	out := t.TempDir()
	st, stdout, errs := runAs("sbxfuzz", "run", "--sut", "wide-open", "--stop-at-first", "--checks", "5000", "--workers", "2", "--out", out, "--format", "json")
	if st != ExitFinding {
		t.Fatalf("status %d, want 1\n%s", st, errs)
	}
	var sum struct {
		Checks      int   `json:"checks"`
		RawFindings int64 `json:"raw_findings"`
		Findings    []struct {
			File string `json:"file"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(sum.Findings) != 1 || len(files) != 1 || files[0] != sum.Findings[0].File {
		t.Fatalf("%d findings, files %v; want one finding, in one file", len(sum.Findings), files)
	}
	if sum.RawFindings < 2 {
		t.Errorf("%d raw findings: the test needs a check that fails more than one invariant", sum.RawFindings)
	}
	if sum.Checks >= 1000 {
		t.Errorf("%d checks: the campaign did not stop at its first finding", sum.Checks)
	}
}

// TestMainAsNamesTheProgram: a program started by MainAs names itself in
// every command it prints: a finding's reproduce line, a report's, the
// help's and the errors'.
func TestMainAsNamesTheProgram(t *testing.T) {
	const prog = "go run ./cmd/mysbx"
	out := t.TempDir()
	if st, _, errs := runAs(prog, "run", "--sut", "wide-open", "--stop-at-first", "--checks", "2000", "--workers", "1", "--out", out); st != ExitFinding {
		t.Fatalf("run: status %d\n%s", st, errs)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.sbx"))
	if len(files) != 1 {
		t.Fatalf("finding files %v, want one", files)
	}
	text, _ := os.ReadFile(files[0])
	if want := "# reproduce: " + prog + " replay --sut wide-open " + filepath.ToSlash(files[0]) + "\n"; !strings.Contains(string(text), want) {
		t.Errorf("finding lacks %q:\n%s", want, text)
	}
	_, report, _ := runAs(prog, "report", "--sut", "wide-open", "--checks", "20", "--format", "md")
	if !strings.Contains(report, "`"+prog+" report --seed 1 --checks 20 --sut wide-open`") || !strings.Contains(report, "`"+prog+" run --seed 1 --checks 20 --sut wide-open`") {
		t.Errorf("the report's commands do not name the program:\n%s", report)
	}
	for _, args := range [][]string{{"help"}, {"run", "-h"}, {"mutants", "-h"}, {"report", "-h"}} {
		_, help, _ := runAs(prog, args...)
		if !strings.Contains(help, "usage: "+prog+" ") || strings.Contains(help, "'sbxfuzz ") {
			t.Errorf("%v does not name the program in its usage and commands:\n%s", args, help)
		}
	}
	for _, args := range [][]string{{"nope"}, {"run", "--nope"}, {"replay"}} {
		if _, _, errs := runAs(prog, args...); !strings.Contains(errs, "'"+prog+" ") {
			t.Errorf("%v: the error does not name the program: %q", args, errs)
		}
	}
}
