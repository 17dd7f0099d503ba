package cli

import (
	"strings"
	"testing"
)

// TestEmptySUTRefused: --sut given empty is most often a variable left
// unset (--sut "$SANDBOX"); judging the reference instead, or grading the
// mutants, would pass a CI job that tested nothing of the user's. Every
// command that takes --sut refuses it, exit 2, before it runs anything.
func TestEmptySUTRefused(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "a.sbx", "grant fs_read /work/\nfs_read /work/a => not_found\n")
	for _, args := range [][]string{
		{"run", "--checks", "1", "--out", dir},
		{"report", "--checks", "1"},
		{"replay", file},
		{"minimize", file},
		{"import", "--out", dir, file},
		{"mutants", "--checks", "1"},
		{"serve"},
	} {
		args = append(args, "--sut", "")
		st, out, errs := run(t, args...)
		if st != ExitUsage || out != "" || !strings.Contains(errs, "--sut: an empty name") {
			t.Errorf("%s: status %d\nstdout:\n%.300s\nstderr:\n%.300s", strings.Join(args, " "), st, out, errs)
		}
	}
}

// TestEmptyMutantRefused: --mutant given empty is a variable left unset
// too; grading all the mutants instead would not be what was asked.
func TestEmptyMutantRefused(t *testing.T) {
	st, out, errs := run(t, "mutants", "--checks", "1", "--mutant", "")
	if st != ExitUsage || out != "" || !strings.Contains(errs, "--mutant: an empty name") {
		t.Errorf("mutants --mutant \"\": status %d\nstdout:\n%.300s\nstderr:\n%.300s", st, out, errs)
	}
}
