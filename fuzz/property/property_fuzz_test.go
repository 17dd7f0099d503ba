package property

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzsut"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
	"pgregory.net/rapid"
)

// FuzzProperty is the main rapid property (sbxtest.PropertyOf) under the Go
// fuzzer, on the sandbox SBXFUZZ_SUT names (any without an adapter, which
// rules out osroot and mcp:): its input is rapid's
// bitstream. It does not build under go-118-fuzz-build (rapid.MakeFuzz
// wants the standard *testing.T), so ClusterFuzzLite leaves it out. Its
// seeds are written by go generate ./fuzz.
func FuzzProperty(f *testing.F) {
	fuzzinput.OneProcPerWorker()
	name, factory, err := fuzzsut.Sandbox.Get()
	if err != nil {
		f.Fatal(err)
	}
	if fuzzsut.Sandbox.Adapts() {
		f.Fatalf("%s=%s: the property draws scenarios this sandbox cannot express, and adapts none (SPEC §13); "+
			"fuzz it with the FuzzScenario of ./fuzz/external", fuzzinput.EnvVar, name)
	}
	f.Fuzz(rapid.MakeFuzz(sbxtest.PropertyOf(sbxtest.Sandbox{Name: name, Factory: factory})))
}
