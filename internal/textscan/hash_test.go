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

// TestHashSpreads counts collisions in the low 16 bits a table index uses,
// in two sets of keys the way hostile ops' paths differ: 100,000 paths of
// 1 to 600 bytes numbered in one place, and 65,536 keys of 15 bytes that
// differ only in their last two (the tail's top bytes, which a hash
// without a finalizer folds into its high bits only). Each must collide
// about as often as random values would, and no more.
func TestHashSpreads(t *testing.T) {
	numbered := make([]string, 100_000)
	for i := range numbered {
		l := 1 + i%600
		s := strings.Repeat("a", l)
		at := (i * 7919) % l
		numbered[i] = s[:at] + strconv.Itoa(i) + s[at:]
	}
	tails := make([]string, 1<<16)
	for i := range tails {
		tails[i] = "/work/out/f" + string([]byte{'.', 'x', byte(i), byte(i >> 8)})
	}
	for _, c := range []struct {
		name string
		keys []string
		want int // expected collisions for random values: n − m(1 − e^(−n/m)), m = 65,536
	}{
		{"numbered paths", numbered, 48_713},
		{"last two bytes", tails, 24_109},
	} {
		seen := make(map[uint64]bool, len(c.keys))
		collisions := 0
		for _, k := range c.keys {
			h := Hash(0x9e3779b97f4a7c15, k) & 0xffff
			if seen[h] {
				collisions++
			}
			seen[h] = true
		}
		if collisions > c.want*105/100 {
			t.Errorf("%s: %d of %d hashes collide in 16 bits, want about %d", c.name, collisions, len(c.keys), c.want)
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
// after a word.
func oneLane(h uint64, s string) uint64 {
	h = mix(h, uint64(len(s)))
	for ; len(s) >= 8; s = s[8:] {
		h = mix(h, word(s))
	}
	var tail uint64
	for i := 0; i < len(s); i++ {
		tail |= uint64(s[i]) << (8 * i)
	}
	return mix(h, tail)
}

var hashSink uint64
