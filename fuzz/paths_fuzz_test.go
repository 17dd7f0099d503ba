package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzcheck"
)

// FuzzPaths checks the SPEC §4 path helpers against an independent
// formulation (CheckPaths): a path, and newline-separated roots.
func FuzzPaths(f *testing.F) {
	f.Fuzz(func(t *testing.T, p, roots string) {
		if err := fuzzcheck.CheckPaths(p, roots); err != nil {
			t.Fatal(err)
		}
	})
}
