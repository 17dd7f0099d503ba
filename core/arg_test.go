package core

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCleanArgIsItsDefinition checks cleanArg, whose ASCII fast path reads
// a word at a time, against its definition (no NUL, valid UTF-8) on
// 200,000 seeded strings of 0 to 100 bytes drawn from bytes that sit on
// every edge it tests: NUL, 0x01, ASCII, 0x7F, 0x80, the halves of "é"
// and 0xFF.
func TestCleanArgIsItsDefinition(t *testing.T) {
	const edges = "\x00\x01a\x7f\x80\xc3\xa9\xff"
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 0, 100)
	for range 200000 {
		b = b[:0]
		n, mostly := r.IntN(101), r.IntN(2) == 0 // half of them almost all 'a', so the fast path is taken
		for len(b) < n {
			c := edges[r.IntN(len(edges))]
			if mostly && r.IntN(64) != 0 { // a third of 100-byte ones all in 0x01–0x7F
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

// BenchmarkCleanArg checks ASCII arguments of the lengths hostile ops carry,
// from a path to a 16 KB flood.
func BenchmarkCleanArg(b *testing.B) {
	for _, n := range []int{16, 63, 64, 1024, 16384} {
		a := strings.Repeat("abcdefg/", n/8+1)[:n]
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				if !cleanArg(a) {
					b.Fatal("not clean")
				}
			}
		})
	}
}
