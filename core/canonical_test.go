package core

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// TestCanonicalIsPathClean checks the fast path of Canonical against
// path.Clean on every string of up to eight bytes over the alphabet that
// matters to it: '/', '.', a letter and '\'.
func TestCanonicalIsPathClean(t *testing.T) {
	const alphabet = "/.a\\"
	var walk func(prefix string, depth int)
	n := 0
	walk = func(p string, depth int) {
		n++
		if got, want := Canonical(p), path.Clean(p); got != want {
			t.Fatalf("Canonical(%q) = %q, path.Clean gives %q", p, got, want)
		}
		if depth == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			walk(p+alphabet[i:i+1], depth-1)
		}
	}
	walk("", 8)
	if n < 80000 {
		t.Fatalf("walked only %d strings", n)
	}
}

// isCanonicalSpec is what isCanonical must answer: absolute, and a fixed
// point of path.Clean.
func isCanonicalSpec(p string) bool {
	return strings.HasPrefix(p, "/") && path.Clean(p) == p
}

// TestIsCanonicalAcrossWords checks isCanonical exactly (not only through
// Canonical, where a false "no" would go unseen) on strings long enough to
// span its eight-byte words: every string of 9 to 12 bytes over "/.a" that
// starts with '/', and 200,000 seeded random ones up to 40 bytes long, where
// a pair can straddle a word boundary or sit in the overlapping last word.
func TestIsCanonicalAcrossWords(t *testing.T) {
	check := func(p string) {
		if got, want := isCanonical(p), isCanonicalSpec(p); got != want {
			t.Fatalf("isCanonical(%q) = %v, want %v", p, got, want)
		}
	}
	const alphabet = "/.a"
	var walk func(p string, depth int)
	walk = func(p string, depth int) {
		if len(p) >= 9 {
			check(p)
		}
		if depth == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			walk(p+alphabet[i:i+1], depth-1)
		}
	}
	walk("/", 11)
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 0, 40)
	for range 200000 {
		b = append(b[:0], '/')
		for n := r.IntN(40); len(b) < n; {
			b = append(b, "/.ab"[r.IntN(4)])
		}
		check(string(b))
	}
}

// TestWorldClockMatchesTickClockAt: the world keeps its clock by
// saturating addition; it must answer what TickClock.At says, edges of
// int64 included.
func TestWorldClockMatchesTickClockAt(t *testing.T) {
	const maxI, minI = int64(^uint64(0) >> 1), -int64(^uint64(0)>>1) - 1
	for _, c := range []TickClock{{0, 1}, {0, 0}, {7, 3}, {-1, 1}, {maxI - 10, 4}, {0, maxI}, {minI, maxI},
		{maxI, -1}, {5, minI}, {minI + 3, -2}, {maxI / 2, maxI / 3}, {maxI, 0}, {maxI, 1}, {maxI - 1, 1}} {
		w := NewWorld(WorldSpec{Clock: c})
		for k := int64(0); k < 50; k++ {
			got, gotOK := w.Now()
			want, wantOK := c.At(k)
			if got != want || gotOK != wantOK {
				t.Fatalf("clock %+v read %d: world says %d, %v; At says %d, %v", c, k, got, gotOK, want, wantOK)
			}
		}
	}
}

// TestCleanIsPathClean checks clean, Canonical's slow path, against
// path.Clean on 100,000 seeded random strings of up to 600 bytes over the
// bytes that matter to it (past 256 bytes it builds its answer on the
// heap), relative ones and those that climb above their start included;
// and that it allocates once, for its answer, where path.Clean allocates
// twice.
func TestCleanIsPathClean(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 0, 600)
	for i := range 100000 {
		b = b[:0]
		for n := r.IntN(600); len(b) < n; {
			b = append(b, "/..a"[r.IntN(4)])
		}
		if i%2 == 0 && len(b) > 0 {
			b[0] = '/'
		}
		if got, want := clean(string(b)), path.Clean(string(b)); got != want {
			t.Fatalf("clean(%q) = %q, path.Clean gives %q", b, got, want)
		}
	}
	for _, p := range []string{"/work/./x", "/work/../etc/passwd", "a/../../b", "//work//x/"} {
		if n := testing.AllocsPerRun(100, func() { clean(p) }); n > 1 {
			t.Errorf("clean(%q) allocates %v times, want at most 1", p, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { clean("/work/") }); n != 0 {
		t.Errorf("clean of a path whose answer is a prefix of it allocates %v times, want 0", n)
	}
}
