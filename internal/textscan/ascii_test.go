package textscan

import (
	"strings"
	"testing"
)

// TestASCIINoNULIsItsDefinition checks ASCIINoNUL directly, both ways
// (core's cleanArg falls back to the exact tests on a "no", which would
// hide a false one): every byte value at every position of strings of 0
// to 72 bytes and of some longer ones (several four-word steps and tails),
// over backgrounds of a letter and of bytes next to the range (0x01,
// 0x7F), against "every byte is in 0x01–0x7F".
func TestASCIINoNULIsItsDefinition(t *testing.T) {
	lengths := []int{100, 101, 103, 127, 128, 129, 135}
	for n := 0; n <= 72; n++ { // a short one, words, four-word steps and their tails
		lengths = append(lengths, n)
	}
	for _, bg := range []byte{'a', 0x01, 0x7f} {
		for _, n := range lengths {
			b := []byte(strings.Repeat(string(bg), n))
			if got := ASCIINoNUL(string(b)); !got {
				t.Fatalf("ASCIINoNUL(%q) = false, want true", b)
			}
			for at := range n {
				for c := range 256 {
					b[at] = byte(c)
					want := c >= 0x01 && c <= 0x7f
					if got := ASCIINoNUL(string(b)); got != want {
						t.Fatalf("ASCIINoNUL(%q) = %v, want %v", b, got, want)
					}
				}
				b[at] = bg
			}
		}
	}
}

// TestHasUpperASCIIIsItsDefinition puts every byte value at every position
// of strings of 1 to 24 bytes, over backgrounds of lower-case letters and of
// bytes next to the range ('@', '[', 0xC1, 0xDA).
func TestHasUpperASCIIIsItsDefinition(t *testing.T) {
	for _, bg := range []byte{'a', '@', '[', 0xc1, 0xda} {
		for n := 1; n <= 24; n++ {
			b := []byte(strings.Repeat(string(bg), n))
			for at := range n {
				for c := range 256 {
					b[at] = byte(c)
					s := string(b)
					want := strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
					if got := HasUpperASCII(s); got != want {
						t.Fatalf("HasUpperASCII(%q) = %v, want %v", s, got, want)
					}
				}
				b[at] = bg
			}
		}
	}
}

// TestIndexNotIn finds the first byte outside a set at every position of
// short strings, for every byte value, and -1 for strings wholly inside.
// The set is no range (every third byte, and 0xFF), so that a scan that
// tests a range instead of the set fails.
func TestIndexNotIn(t *testing.T) {
	var set [256]bool
	for c := range set {
		set[c] = c%3 == 0 || c == 0xff
	}
	for n := 0; n <= 20; n++ {
		in := strings.Repeat("0", n) // '0' is 48, in the set
		if got := IndexNotIn(in, &set); got != -1 {
			t.Fatalf("IndexNotIn(%q) = %d, want -1", in, got)
		}
		for i := 0; i < n; i++ {
			for c := 0; c < 256; c++ {
				b := []byte(in)
				b[i] = byte(c)
				s, want := string(b), i
				if set[c] {
					want = -1
				}
				if got := IndexNotIn(s, &set); got != want {
					t.Fatalf("IndexNotIn(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
	if got := IndexNotIn("0a0b0", &set); got != 1 {
		t.Fatalf(`IndexNotIn("0a0b0") = %d, want the first of two, 1`, got)
	}
}
