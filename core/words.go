package core

import "encoding/binary"

// The scans of paths, arguments and hosts read eight bytes at a time: few
// branches per byte matter on the reference's hot path, and more under the
// fuzzer's instrumentation, which hooks every comparison.

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
