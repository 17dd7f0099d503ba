package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzcheck"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
	"pgregory.net/rapid"
)

// FuzzProperty is the main rapid property (sbxtest.PropertyOf) under the Go
// fuzzer, on the sandbox SBXFUZZ_SUT names (any without an adapter: it
// skips osroot and mcp:): its input is rapid's bitstream. It does not
// build under go-118-fuzz-build (rapid.MakeFuzz wants the standard
// *testing.T), so ClusterFuzzLite leaves it out. Its seeds are written by
// go generate ./fuzz.
func FuzzProperty(f *testing.F) {
	name, factory, err := fuzzcheck.SUT()
	if err != nil {
		f.Fatal(err)
	}
	if fuzzcheck.Adapts() {
		f.Skipf("%s=%s: the property draws scenarios this sandbox cannot express, and adapts none (SPEC §13); "+
			"FuzzScenario goes through its adapter", sut.EnvVar, name)
	}
	f.Fuzz(rapid.MakeFuzz(sbxtest.PropertyOf(sbxtest.Sandbox{Name: name, Factory: factory})))
}
