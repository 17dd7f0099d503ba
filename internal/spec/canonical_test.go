package spec

import (
	"path"
	"testing"
)

// TestCanonicalIsPathClean checks Canonical, which leaves a path it finds
// clean as it is, against path.Clean on every string of up to eight bytes
// over the alphabet that matters to it: '/', '.', a letter and '\'.
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
