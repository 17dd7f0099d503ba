package fuzz

import "testing"

// FuzzResolve checks the inet_aton parser of SPEC §6 against an independent
// one (CheckResolve).
func FuzzResolve(f *testing.F) {
	OneProcPerWorker()
	f.Fuzz(func(t *testing.T, s string) {
		if err := CheckResolve(s); err != nil {
			t.Fatal(err)
		}
	})
}
