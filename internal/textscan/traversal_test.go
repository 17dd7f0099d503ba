package textscan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDotPairMaybeNeverMisses checks dotPairMaybe, HasDotDotSegment's
// word-at-a-time filter, against strings.Contains(p, ".."): it must never
// answer false for a string with two dots in a row (HasDotDotSegment would
// miss the traversal), and it must answer false for most strings without
// (or it filters nothing). Every string of up to 6 bytes over bytes that sit on
// its edges ('.', its neighbours '-' and '/', NUL, 0x01, 0x80, 0xAE, 0xFF),
// then 200,000 seeded strings of 0 to 80 bytes (from 64 on the filter is
// strings.Contains itself), most of them almost all 'a', with the pair in
// whole words, in the overlapping last word and in a padded short one.
func TestDotPairMaybeNeverMisses(t *testing.T) {
	const edges = ".-/\x00\x01\x80\xae\xffa"
	check := func(p string) {
		if want := strings.Contains(p, ".."); want && !dotPairMaybe(p) {
			t.Fatalf("dotPairMaybe(%q) = false, but it holds \"..\"", p)
		}
	}
	var all func(prefix []byte, n int)
	all = func(prefix []byte, n int) {
		check(string(prefix))
		if n == 0 {
			return
		}
		for i := 0; i < len(edges); i++ {
			all(append(prefix, edges[i]), n-1)
		}
	}
	all(nil, 6)
	r := rand.New(rand.NewPCG(18, 2))
	b := make([]byte, 0, 80)
	filtered, clean := 0, 0
	for range 200000 {
		b = b[:0]
		n, mostly := r.IntN(81), r.IntN(2) == 0
		for len(b) < n {
			c := edges[r.IntN(len(edges))]
			if mostly && r.IntN(16) != 0 {
				c = 'a'
			}
			b = append(b, c)
		}
		check(string(b))
		if !strings.Contains(string(b), "..") {
			clean++
			if !dotPairMaybe(string(b)) {
				filtered++
			}
		}
	}
	if filtered < clean*9/10 {
		t.Errorf("dotPairMaybe let %d of %d strings without \"..\" through to the exact loop", clean-filtered, clean)
	}
}
