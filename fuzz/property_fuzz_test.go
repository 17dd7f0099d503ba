package fuzz

import (
	"testing"

	"pgregory.net/rapid"
)

// FuzzProperty is the main rapid property (Property) under the Go fuzzer:
// its input is rapid's bitstream. It does not build under go-118-fuzz-build
// (rapid.MakeFuzz wants the standard *testing.T), so ClusterFuzzLite leaves
// it out; this file holds nothing else.
func FuzzProperty(f *testing.F) {
	OneProcPerWorker()
	f.Fuzz(rapid.MakeFuzz(Property))
}
