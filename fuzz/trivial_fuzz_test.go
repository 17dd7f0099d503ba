package fuzz

import "testing"

// FuzzTrivial is the throughput baseline: it only decodes its bytes into a
// string and inspects it (Trivial).
func FuzzTrivial(f *testing.F) {
	OneProcPerWorker()
	f.Add([]byte("seed"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := Trivial(data); err != nil {
			t.Fatal(err)
		}
	})
}
