package reports_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// TestExpressible: the summary line says what fraction of the drawn
// scenarios an adapter expressed, and nothing when it expressed them all.
func TestExpressible(t *testing.T) {
	for _, tc := range []struct {
		checks, drawn int
		unasked, want string
	}{
		{42, 100, "", "; 42 of 100 drawn scenarios expressible (42%)"},
		{100, 0, "", ""}, // no adapter skipped any: Drawn is left out
		{7, 7, "", ""},
		{42, 100, "fs_read never asked", "; 42 of 100 drawn scenarios expressible (42%); fs_read never asked"},
		{7, 7, "fs_read never asked", "; fs_read never asked"},
	} {
		s := reports.Summary{Checks: tc.checks, Drawn: tc.drawn, Unasked: tc.unasked}
		if got := s.Expressible(); got != tc.want {
			t.Errorf("%d checks of %d drawn: %q, want %q", tc.checks, tc.drawn, got, tc.want)
		}
	}
	// Why the most were left out, where the door says.
	s := reports.Summary{Checks: 42, Drawn: 100, LeftOut: map[string]int{"no op is an fs_read": 50, "a grant root is a link": 8}}
	if got, want := s.Expressible(), "; 42 of 100 drawn scenarios expressible (42%; 50 of those left out because no op is an fs_read)"; got != want {
		t.Errorf("with the reasons: %q, want %q", got, want)
	}
}

// TestLateWarning: requests a sandbox sent the world between ops are a
// warning of their own, with the least of them, and none is none.
func TestLateWarning(t *testing.T) {
	s := reports.Summary{SUT: "proxy:x", LateRequests: 3, LateExample: "b.test 10.0.0.1 /admin"}
	if w := s.SandboxWarnings(); len(w) != 1 || !strings.Contains(w[0], "proxy:x sent the world 3 requests after the op that made them had answered") || !strings.Contains(w[0], "b.test 10.0.0.1 /admin") {
		t.Errorf("warnings %q", w)
	}
	if w := (&reports.Summary{SUT: "proxy:x"}).LateWarning(); w != "" {
		t.Errorf("with none: %q", w)
	}
}

// TestSummaryClauses: the summary line's clauses for the ops stricter than
// the model (per reason, the most first, ties by name) and a server's
// skipped stdout lines, and nothing when there were none.
func TestSummaryClauses(t *testing.T) {
	s := reports.Summary{Stricter: map[string]int64{"other": 3, "dangling-write": 9}, SkippedStdoutLines: 1,
		StricterExamples: map[string]string{"other": "fs_read /data/..hidden", "dangling-write": "fs_write /data/dl x"}}
	if got, want := s.StricterClause(), "; 12 ops stricter than the model (dangling-write 9, other 3)"; got != want {
		t.Errorf("StricterClause() = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{
		"stricter than the model (dangling-write, 9 ops), one of them: fs_write /data/dl x",
		"stricter than the model (other, 3 ops), one of them: fs_read /data/..hidden",
	}, s.StricterExampleLines()); diff != "" {
		t.Errorf("StricterExampleLines (-want +got):\n%s", diff)
	}
	s.StricterFiles = map[string]string{"dangling-write": "out/stricter-dangling-write.sbx"}
	s.StricterSaid = map[string]string{"dangling-write": `Access denied: "/data/dl"`}
	if diff := cmp.Diff([]string{
		`stricter than the model (dangling-write, 9 ops), one of them: fs_write /data/dl x, refused in the words "Access denied: \"/data/dl\""; its scenario, to replay: out/stricter-dangling-write.sbx`,
		"stricter than the model (other, 3 ops), one of them: fs_read /data/..hidden; no scenario written: each such op came after a finding in its check",
	}, s.StricterExampleLines()); diff != "" {
		t.Errorf("StricterExampleLines with one file written (-want +got):\n%s", diff)
	}
	if got, want := s.SkippedLinesClause(), "; 1 non-JSON stdout line skipped"; got != want {
		t.Errorf("SkippedLinesClause() = %q, want %q", got, want)
	}
	s = reports.Summary{Stricter: map[string]int64{"b": 1, "a": 1}, SkippedStdoutLines: 4}
	if got, want := s.StricterClause(), "; 2 ops stricter than the model (a 1, b 1)"; got != want {
		t.Errorf("StricterClause() = %q, want %q", got, want)
	}
	if got, want := s.SkippedLinesClause(), "; 4 non-JSON stdout lines skipped"; got != want {
		t.Errorf("SkippedLinesClause() = %q, want %q", got, want)
	}
	var none reports.Summary
	if none.StricterClause() != "" || none.SkippedLinesClause() != "" {
		t.Errorf("an empty summary: %q %q, want nothing", none.StricterClause(), none.SkippedLinesClause())
	}
}

// TestRate: a rate of ops a second is whole when it is large, and keeps two
// significant digits when it is small, so a sandbox slower than an op a
// second does not read as none.
func TestRate(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 0.39: "0.39", 0.0123: "0.012", 5.54: "5.5", 9.96: "10", 10: "10", 123.4: "123", 2990.5: "2990"} {
		if got := reports.Rate(x); got != want {
			t.Errorf("Rate(%v) = %q, want %q", x, got, want)
		}
	}
}
