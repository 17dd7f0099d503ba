package textscan

import (
	"encoding/binary"
	"testing"
)

// TestLoadShort checks the two-half load against copying into a padded
// word, for every length under a word and every byte at every position.
func TestLoadShort(t *testing.T) {
	for _, pad := range []byte{0, ' ', 0xff} {
		for n := range 8 {
			b := []byte("abcdefg"[:n])
			for at := range n {
				for c := range 256 {
					b[at] = byte(c)
					w := [8]byte{pad, pad, pad, pad, pad, pad, pad, pad}
					copy(w[:], b)
					if got, want := loadShort(string(b), lsbs*uint64(pad)), binary.LittleEndian.Uint64(w[:]); got != want {
						t.Fatalf("loadShort(%q, pad %#x) = %#x, want %#x", b, pad, got, want)
					}
				}
				b[at] = "abcdefg"[at]
			}
			if n == 0 {
				if got := loadShort("", lsbs*uint64(pad)); got != lsbs*uint64(pad) {
					t.Fatalf("loadShort(\"\") = %#x", got)
				}
			}
		}
	}
}
