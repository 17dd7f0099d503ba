package fuzzinput

import (
	"math/rand/v2"
	"testing"
)

// randomInputs returns n inputs of random bytes from a fixed seed, up to
// max bytes long.
func randomInputs(seed uint64, n, max int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, r.IntN(max+1))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out[i] = b
	}
	return out
}

// BenchmarkCheckScenario is one FuzzScenario exec on random inputs.
func BenchmarkCheckScenario(b *testing.B) {
	in := randomInputs(1, 1024, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := CheckScenario(in[i%len(in)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode is Decode alone on the same inputs.
func BenchmarkDecode(b *testing.B) {
	in := randomInputs(1, 1024, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Decode(in[i%len(in)])
	}
}
