package external

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzsut"
)

// FuzzScenario is package fuzz's FuzzScenario on any sandbox SBXFUZZ_SUT
// names (fuzzsut.Sandbox), from the same seed corpus.
func FuzzScenario(f *testing.F) {
	fuzzinput.OneProcPerWorker()
	seeds, err := fuzzinput.ReadSeedDir("../testdata/fuzz/FuzzScenario")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fuzzsut.CheckScenario(data); err != nil {
			t.Fatal(err)
		}
	})
}
