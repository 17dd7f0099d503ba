package fuzzinput

import (
	"math/rand/v2"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/oracle"
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

// BenchmarkCheckScenarioSeeds is one FuzzScenario exec on each committed
// seed of fuzz/testdata/fuzz/FuzzScenario in turn: the inputs a fuzzing
// run starts from, and the unit reports/speed.sh measures.
func BenchmarkCheckScenarioSeeds(b *testing.B) {
	in := seedInputs(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := CheckScenario(in[i%len(in)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckScenarioFresh is BenchmarkCheckScenarioSeeds with each
// exec on a goroutine of its own, as a go test -fuzz worker runs them: what
// a check costs on a stack that starts small, grown up front (grown, as in
// a worker) or as the check goes deeper (deep).
func BenchmarkCheckScenarioFresh(b *testing.B) {
	in := seedInputs(b)
	defer inWorker.Store(inWorker.Load())
	for _, c := range []struct {
		name  string
		grown bool
	}{{"deep", false}, {"grown", true}} {
		b.Run(c.name, func(b *testing.B) {
			inWorker.Store(c.grown)
			errs := make(chan error)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				go func() { errs <- CheckScenario(in[i%len(in)]) }()
				if err := <-errs; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeSeeds is the decoding part of BenchmarkCheckScenarioSeeds:
// what an exec costs before the oracle runs, its memory recycled as after
// an input that passed.
func BenchmarkDecodeSeeds(b *testing.B) {
	in := seedInputs(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := decodeInput(in[i%len(in)])
		d.recycle()
	}
}

// BenchmarkOracleSeeds is the oracle's part of BenchmarkCheckScenarioSeeds:
// the seeds decoded once, then judged in turn.
func BenchmarkOracleSeeds(b *testing.B) {
	_, f, err := SUT()
	if err != nil {
		b.Fatal(err)
	}
	var cases []oracle.Case
	for _, data := range seedInputs(b) {
		in := decodeInput(data)
		cases = append(cases, in.caseOf())
	}
	cov := new(oracle.Coverage)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if fs := oracle.CheckInline(f, cases[i%len(cases)], cov); len(fs) > 0 {
			b.Fatal(fs)
		}
	}
}

// seedInputs reads the committed FuzzScenario seeds.
func seedInputs(b *testing.B) [][]byte {
	in, err := ReadSeedDir("../../fuzz/testdata/fuzz/FuzzScenario")
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkParseSeeds is the .sbx parsing part of BenchmarkDecodeSeeds:
// a reused scenario.Parser on the text seeds in turn.
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
		if _, err := p.Parse(parseName, text[i%len(text)]); err != nil {
			b.Fatal(err)
		}
	}
}
