package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
)

// FuzzTrivial is the throughput baseline: it only decodes its bytes into a
// string and inspects it (Trivial).
func FuzzTrivial(f *testing.F) {
	fuzzinput.OneProcPerWorker()
	f.Add([]byte("seed"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fuzzinput.Trivial(data); err != nil {
			t.Fatal(err)
		}
	})
}
