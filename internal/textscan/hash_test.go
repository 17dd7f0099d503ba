package textscan

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHashReadsEveryByte changes each byte of strings of 0 to 100 bytes
// (one lane, four lanes and their tails) and asks for another hash each
// time: a word a lane skipped, or a tail left out, would keep the hash.
// It also asks that a []byte hash as the string of its bytes, which core's
// link lookups rely on.
func TestHashReadsEveryByte(t *testing.T) {
	for n := range 101 {
		b := []byte(strings.Repeat("p/", n)[:n])
		base := Hash(7, string(b))
		if got := HashBytes(7, b); got != base {
			t.Fatalf("n=%d: Hash of the []byte %#x, of the string %#x", n, got, base)
		}
		for at := range n {
			for _, c := range []byte{0, 'q', 0xff} {
				was := b[at]
				b[at] = c
				if Hash(7, string(b)) == base {
					t.Fatalf("n=%d: byte %d set to %#x keeps the hash", n, at, c)
				}
				b[at] = was
			}
		}
		if n > 0 && Hash(7, string(b[:n-1])) == base {
			t.Fatalf("n=%d: dropping the last byte keeps the hash", n)
		}
		if Hash(7, string(b)+"\x00") == base {
			t.Fatalf("n=%d: a NUL more keeps the hash", n)
		}
	}
}

// TestHashOrdersWords swaps two different words of strings of 32 and 64
// bytes, in every pair of word positions, and asks for another hash:
// lanes that started alike would hash a swap within a block the same.
func TestHashOrdersWords(t *testing.T) {
	all := []string{"aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd", "eeeeeeee", "ffffffff", "gggggggg", "hhhhhhhh"}
	for _, words := range [][]string{all[:4], all} {
		base := Hash(7, strings.Join(words, ""))
		for i := range words {
			for j := i + 1; j < len(words); j++ {
				w := slices.Clone(words)
				w[i], w[j] = w[j], w[i]
				if Hash(7, strings.Join(w, "")) == base {
					t.Errorf("%d words: swapping words %d and %d keeps the hash", len(words), i, j)
				}
			}
		}
	}
}

// BenchmarkHash hashes keys from a path to a 16 KB file's content, with
// Hash and with oneLane, the single chain Hash replaced, for comparison.
func BenchmarkHash(b *testing.B) {
	for _, n := range []int{16, 64, 1024, 16384} {
		s := strings.Repeat("abcdefg/", n/8+1)[:n]
		for _, f := range []struct {
			name string
			hash func(uint64, string) uint64
		}{{"Hash", Hash}, {"oneLane", oneLane}} {
			b.Run(f.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					hashSink = f.hash(1, s)
				}
			})
		}
	}
}

// oneLane is the hash core used before Hash: one chain of mixes, a word
// after a word, then the last bytes as a little-endian word padded with
// zeros, read from the end.
func oneLane(h uint64, s string) uint64 {
	h = mix(h, uint64(len(s)))
	for len(s) >= 8 {
		h, s = mix(h, word(s)), s[8:]
	}
	var last uint64
	for i := len(s) - 1; i >= 0; i-- {
		last = last<<8 | uint64(s[i])
	}
	return mix(h, last)
}

// TestHashIsOneLaneWhenShort: below 32 bytes Hash is the one-lane hash it
// replaced, word loop and tail alike, and gives the values core's old
// hashText gave (pinned from dd19890), so mix and word are pinned too.
func TestHashIsOneLaneWhenShort(t *testing.T) {
	for n := range 32 {
		s := strings.Repeat("/p\xfe", 11)[:n]
		if got, want := Hash(9, s), oneLane(9, s); got != want {
			t.Fatalf("n=%d: Hash %#x, one lane %#x", n, got, want)
		}
	}
	for _, c := range []struct {
		s    string
		want uint64
	}{
		{"", 0x976bb51d42510994},
		{"/", 0x32241e4c8c7446d4},
		{"/work/data.txt", 0x27a1dd5c0498524e},
		{"api.internal", 0x133a532f5288703d},
		{"/work/out/f.x\x00\xff", 0x624113848d81fcc8},
		{"0123456789abcdefghijklmnopqrstu", 0xb86daae53fdf4502},
	} {
		if got := Hash(0x9e3779b97f4a7c15, c.s); got != c.want {
			t.Errorf("Hash(%q) = %#x, the old hash gave %#x", c.s, got, c.want)
		}
	}
}

var hashSink uint64
