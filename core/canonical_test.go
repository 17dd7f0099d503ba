package core

import (
	"path"
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
