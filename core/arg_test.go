package core

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCleanArgIsItsDefinition checks cleanArg, whose ASCII fast path reads
// a word at a time, against its definition (no NUL, valid UTF-8) on 200,000
// seeded strings of 0 to 40 bytes drawn from bytes that sit on every edge
// it tests: NUL, 0x01, ASCII, 0x7F, 0x80, the halves of "é" and 0xFF.
func TestCleanArgIsItsDefinition(t *testing.T) {
	const edges = "\x00\x01a\x7f\x80\xc3\xa9\xff"
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 0, 40)
	for range 200000 {
		b = b[:0]
		n, mostly := r.IntN(41), r.IntN(2) == 0 // half of them almost all 'a', so the fast path is taken
		for len(b) < n {
			c := edges[r.IntN(len(edges))]
			if mostly && r.IntN(16) != 0 {
				c = 'a'
			}
			b = append(b, c)
		}
		a := string(b)
		if got, want := cleanArg(a), utf8.ValidString(a) && !strings.Contains(a, "\x00"); got != want {
			t.Fatalf("cleanArg(%q) = %v, want %v", a, got, want)
		}
	}
}
