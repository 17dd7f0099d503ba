package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzcheck"
)

// FuzzResolve checks the inet_aton parser of SPEC §6 against the rules any
// reading of glibc's keeps (CheckResolve).
func FuzzResolve(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		if err := fuzzcheck.CheckResolve(s); err != nil {
			t.Fatal(err)
		}
	})
}
