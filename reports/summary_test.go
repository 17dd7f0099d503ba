package reports_test

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/reports"
)

// TestExpressible: the summary line says what fraction of the drawn
// scenarios an adapter expressed, and nothing when it expressed them all.
func TestExpressible(t *testing.T) {
	for _, tc := range []struct {
		checks, drawn int
		want          string
	}{
		{42, 100, "; 42 of 100 drawn scenarios expressible (42%)"},
		{100, 0, ""}, // no adapter skipped any: Drawn is left out
		{7, 7, ""},
	} {
		s := reports.Summary{Checks: tc.checks, Drawn: tc.drawn}
		if got := s.Expressible(); got != tc.want {
			t.Errorf("%d checks of %d drawn: %q, want %q", tc.checks, tc.drawn, got, tc.want)
		}
	}
}
