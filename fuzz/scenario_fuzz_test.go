package fuzz

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzcheck"
)

// FuzzScenario decodes arbitrary bytes into a scenario (Decode) and judges
// it with the full oracle on the sandbox SBXFUZZ_SUT names (default: the
// reference); a finding fails with the violations in plain words and the
// decoded scenario. Seeds: testdata/fuzz/FuzzScenario, one per corpus
// scenario (go generate ./fuzz). The body is one call into a plain
// function, so go-118-fuzz-build can build it for libFuzzer.
func FuzzScenario(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := fuzzcheck.CheckScenario(data); err != nil {
			t.Fatal(err)
		}
	})
}
