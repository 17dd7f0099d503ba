package fuzz

import "testing"

// FuzzPaths checks the SPEC §4 path helpers against an independent
// formulation (CheckPaths): a path, and newline-separated roots.
func FuzzPaths(f *testing.F) {
	OneProcPerWorker()
	f.Fuzz(func(t *testing.T, p, roots string) {
		if err := CheckPaths(p, roots); err != nil {
			t.Fatal(err)
		}
	})
}
