package textscan

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// isCleanSpec is what IsClean must answer: absolute, and a fixed
// point of path.Clean.
func isCleanSpec(p string) bool {
	return strings.HasPrefix(p, "/") && path.Clean(p) == p
}

// TestIsCleanAcrossWords checks IsClean exactly (not only through
// core.Canonical, where a false "no" would go unseen) on strings long
// enough to span its eight-byte words: every string of 9 to 12 bytes over
// "/.a" that starts with '/', and 200,000 seeded random ones up to 40
// bytes long, where a pair can straddle a word boundary or sit in the
// overlapping last word; then long ones, which take another path.
func TestIsCleanAcrossWords(t *testing.T) {
	check := func(p string) {
		if got, want := IsClean(p), isCleanSpec(p); got != want {
			t.Fatalf("IsClean(%q) = %v, want %v", p, got, want)
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
	// Paths of 256 bytes and more take longIsClean: 20,000 of up to 1,200
	// bytes, mostly 'a', about 70% of them clean, with "//" and "/."
	// pairs anywhere, either first, or both.
	clean := 0
	for range 20000 {
		b = append(b[:0], '/')
		for n := 256 + r.IntN(1000); len(b) < n; {
			c := byte('a')
			if r.IntN(16) == 0 {
				c = "/.b"[r.IntN(3)]
			}
			b = append(b, c)
		}
		if isCleanSpec(string(b)) {
			clean++
		}
		check(string(b))
	}
	if clean < 1000 || clean > 19000 {
		t.Errorf("%d of 20,000 long paths were clean: too few of one kind", clean)
	}
}

// TestCleanIsPathClean checks Clean, core.Canonical's slow path, against
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
		if got, want := Clean(string(b)), path.Clean(string(b)); got != want {
			t.Fatalf("Clean(%q) = %q, path.Clean gives %q", b, got, want)
		}
	}
	for _, p := range []string{"/work/./x", "/work/../etc/passwd", "a/../../b", "//work//x/"} {
		if n := testing.AllocsPerRun(100, func() { Clean(p) }); n > 1 {
			t.Errorf("Clean(%q) allocates %v times, want at most 1", p, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Clean("/work/") }); n != 0 {
		t.Errorf("Clean of a path whose answer is a prefix of it allocates %v times, want 0", n)
	}
}
