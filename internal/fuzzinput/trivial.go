package fuzzinput

import (
	"errors"
	"strings"
)

// errTrivial is what Trivial returns for its one rejected input.
var errTrivial = errors.New("fuzz: the trivial target's rejected input")

// Trivial is FuzzTrivial's body: it decodes data into a string and
// inspects it, and nothing else. FuzzTrivial is the baseline that the
// throughput of FuzzScenario is measured against (docs/benchmarks.md); it
// fails only on an input no fuzzer will construct by chance.
func Trivial(data []byte) error {
	s := string(data)
	if strings.HasPrefix(s, "sbxfuzz trivial baseline:") && strings.HasSuffix(s, "\x00\xff reject") {
		return errTrivial
	}
	return nil
}
