package fuzzdecode

import (
	"math/rand/v2"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
	"github.com/sbxfuzz/sbxfuzz/scenario"
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

// seedInputs reads the committed FuzzScenario seeds.
func seedInputs(tb testing.TB) [][]byte {
	in, err := fuzzfile.ReadSeedDir("../../fuzz/testdata/fuzz/FuzzScenario")
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// BenchmarkDecode is Decode on random inputs.
func BenchmarkDecode(b *testing.B) {
	in := randomInputs(1, 1024, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Decode(in[i%len(in)])
	}
}

// BenchmarkReadSeeds is what a FuzzScenario exec costs before the oracle
// runs, on the committed seeds in turn, the memory released as after an
// input that passed: against BenchmarkDecode, what the arenas and the
// pooled memory save.
func BenchmarkReadSeeds(b *testing.B) {
	in := seedInputs(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := Read(in[i%len(in)])
		d.Release()
	}
}

// BenchmarkDecodeSeeds is Decode on the same seeds: each scenario of its
// own memory.
func BenchmarkDecodeSeeds(b *testing.B) {
	in := seedInputs(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Decode(in[i%len(in)])
	}
}

// BenchmarkParseSeeds is the .sbx parsing part of BenchmarkReadSeeds: a
// reused scenario.Parser on the text seeds in turn.
func BenchmarkParseSeeds(b *testing.B) {
	var text [][]byte
	for _, data := range seedInputs(b) {
		if len(data) > 0 && data[0] == textMarker {
			text = append(text, data)
		}
	}
	var p scenario.Parser
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Parse("fuzz.sbx", text[i%len(text)]); err != nil {
			b.Fatal(err)
		}
	}
}
