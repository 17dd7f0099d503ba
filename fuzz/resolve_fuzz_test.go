package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
)

// FuzzResolve checks the inet_aton parser of SPEC §6 against an independent
// one (CheckResolve).
func FuzzResolve(f *testing.F) {
	fuzzinput.OneProcPerWorker()
	f.Fuzz(func(t *testing.T, s string) {
		if err := fuzzinput.CheckResolve(s); err != nil {
			t.Fatal(err)
		}
	})
}
