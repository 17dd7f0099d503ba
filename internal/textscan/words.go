// Package textscan holds the byte scans under the reference sandbox's
// hot path: path.Clean's algorithm and the test that a path is already
// clean (core.Canonical), the ".." segment test (core.HasTraversal), the
// argument, host and name byte tests, and the hash of core's world tables and
// fingerprint. Most read eight bytes at a time, since few branches per
// byte matter on that path.
//
// It is a package of its own so that the libFuzzer build can leave it
// uninstrumented, as it leaves the standard library (fuzz/libfuzzer.sh,
// .clusterfuzzlite/build.sh; only FuzzPaths, which tests these scans,
// instruments them). Under -d=libfuzzer every comparison is a
// call into libFuzzer's runtime, and these scans' loops made up a fifth of
// a FuzzScenario exec there, while their branches tell the fuzzer little
// the sandbox's own do not: path.Clean itself, which core.Canonical called
// before this copy of it, is not instrumented in that build either. Keep
// the package to such scans: what decides a verdict belongs in core.
package textscan

import "encoding/binary"

// Word-at-a-time constants: a one and a high bit in every byte.
const (
	lsbs = 0x0101010101010101
	msbs = 0x8080808080808080
)

// loadShort returns the bytes of s, which is shorter than a word, as the
// low bytes of a little-endian word whose other bytes are pad's. It loads
// two overlapping halves instead of copying, so a short string costs no
// call.
func loadShort(s string, pad uint64) uint64 {
	n := len(s)
	var v uint64
	if n >= 4 {
		v = uint64(binary.LittleEndian.Uint32([]byte(s[:4]))) | uint64(binary.LittleEndian.Uint32([]byte(s[n-4:])))<<(8*(n-4))
	} else {
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(s[i])
		}
	}
	return v | pad<<(8*n)
}

// load returns the eight bytes of s at i as a little-endian word.
func load(s string, i int) uint64 { return binary.LittleEndian.Uint64([]byte(s[i : i+8])) }
