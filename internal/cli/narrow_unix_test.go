//go:build unix

package cli

import (
	"fmt"
	"strings"
	"testing"
)

// TestRealSandboxNarrowedAsInRun: replay, minimize and import ask a real
// sandbox what run would ask it — the scenario narrowed by its adapter —
// so that osroot, a correct sandbox, passes the whole committed corpus:
// the ops it cannot express are skipped and counted, not judged, and an
// expectation the narrowing changed SPEC §5's answer for is not held.
// Without the adapter, dot-segments.sbx and long-path.sbx fail on ops it
// drops, and three files on worlds a real tree cannot be; a file skipped
// whole says why.
func TestRealSandboxNarrowedAsInRun(t *testing.T) {
	st, out, errs := run(t, "replay", "--sut", "osroot", "../../corpus/...")
	if st != ExitOK {
		t.Fatalf("replay --sut osroot of the corpus: status %d\n%s%s", st, out, errs)
	}
	for _, want := range []string{
		`metadata.sbx: skipped: osroot can express none of its 18 steps (not run, not judged): no op is an fs_read or fs_write of an absolute path that climbs at most 8 "..", a write's with no "\"; it is asked`,
		// A file at "/", or at a root's own path beside files below it,
		// is left out of the world a disk holds, with the ops on it, and
		// the rest is asked.
		"outside-absolute.sbx: 10 steps (2 skipped), ok",
		// A read with "\" is asked (its answer not judged), a write
		// is not.
		"prefix-sibling.sbx: steps 5, 8, 9 skipped",
		"prefix-sibling.sbx: 13 steps (3 skipped), ok",
		"dot-segments.sbx: step 15 skipped: osroot cannot express it (not run, not judged): it is asked fs_read, and fs_write with no \"\\\" in its path, of absolute paths that climb at most 8",
		"dot-segments.sbx: expectation of step 16 not held",
		"dot-segments.sbx: 17 steps (1 skipped), ok",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay --sut osroot of the corpus does not say %q", want)
		}
	}
	dotSegments := "../../corpus/classes/dot-segments.sbx"
	if st, out, errs := run(t, "minimize", "--sut", "osroot", dotSegments); st != ExitOK {
		t.Errorf("minimize --sut osroot of a scenario osroot passes: status %d\n%s%s", st, out, errs)
	}
	if st, out, errs := run(t, "import", "--sut", "osroot", "--layout", "raw", "--out", t.TempDir(), dotSegments); st != ExitOK {
		t.Errorf("import --sut osroot of a scenario osroot passes: status %d\n%s%s", st, out, errs)
	}
}

// TestSetupErrorsExit2: a sandbox that cannot be set up at all — a
// command that cannot be started, a world too large for a real tree — is
// exit 2 with one line from every command that runs one, before any op,
// not a total finding.
func TestSetupErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	sc := writeFile(t, dir, "a.sbx", "grant fs_read /work/\nfile /work/a x\n\nfs_read /work/a\n")
	var big strings.Builder
	big.WriteString("grant fs_read /work/\n")
	for i := range 5000 {
		fmt.Fprintf(&big, "file /work/f%d x\n", i)
	}
	big.WriteString("\nfs_read /work/f1\n")
	large := writeFile(t, dir, "large.sbx", big.String())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--checks", "5", "--sut", "exec:/no/such/binary", "--out", dir}, "cannot start /no/such/binary"},
		{[]string{"replay", "--sut", "exec:/no/such/binary", sc}, "cannot start /no/such/binary"},
		{[]string{"minimize", "--sut", "exec:/no/such/binary", sc}, "cannot start /no/such/binary"},
		{[]string{"import", "--sut", "exec:/no/such/binary", "--layout", "raw", "--out", dir, sc}, "cannot start /no/such/binary"},
		{[]string{"replay", "--sut", "osroot", large}, "osroot cannot run it: the world has 5000 files and links"},
		{[]string{"minimize", "--sut", "osroot", large}, "osroot cannot run it"},
	} {
		st, out, errs := run(t, tc.args...)
		if st != ExitUsage || !strings.HasPrefix(errs, "sbxfuzz: ") || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: status %d, stderr %q, stdout %q; want 2 and one line saying %q", tc.args, st, errs, out, tc.want)
		}
	}
}
