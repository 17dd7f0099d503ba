package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
)

// FuzzRun runs decoded op sequences on the reference sandbox: see CheckRun.
func FuzzRun(f *testing.F) {
	fuzzinput.OneProcPerWorker()
	for _, seed := range fuzzinput.RunSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fuzzinput.CheckRun(data); err != nil {
			t.Fatal(err)
		}
	})
}
