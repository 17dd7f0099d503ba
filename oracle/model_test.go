package oracle

import (
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// TestBadArgAgreesWithCore puts a NUL, a high byte, an invalid sequence and
// a valid multi-byte rune at every position of strings of up to 20 bytes,
// of 56 to 104 (around longBadArg's 64 and its four-word steps) and of 1,000:
// the model's word-at-a-time scan must agree with core.WellFormed.
func TestBadArgAgreesWithCore(t *testing.T) {
	inserts := []string{"\x00", "\xff", "\xc3", "é", "\uff0e", "\xe2\x80", "\xed\xa0\x80", "\x7f", "\x01"}
	sizes := []int{1000}
	for size := 0; size <= 104; size++ {
		if size <= 20 || size >= 56 {
			sizes = append(sizes, size)
		}
	}
	n := 0
	for _, size := range sizes {
		base := strings.Repeat("a", size)
		for at := 0; at <= size; at++ {
			for _, ins := range inserts {
				s := base[:at] + ins + base[at:]
				n++
				if got, want := badArg(s), !core.WellFormed([]string{s}, 1); got != want {
					t.Fatalf("badArg(%q) = %v, core says bad = %v", s, got, want)
				}
			}
		}
	}
	if n < 2000 {
		t.Fatalf("only %d strings", n)
	}
}

// TestDotDotSegmentAgreesWithCore compares the model's search-based
// traversal test with core.HasTraversal on every string of up to six bytes
// over the bytes that matter.
func TestDotDotSegmentAgreesWithCore(t *testing.T) {
	const alphabet = "./\\a"
	var walk func(string, int)
	walk = func(p string, depth int) {
		if got, want := dotDotSegment(p), core.HasTraversal(p); got != want {
			t.Fatalf("dotDotSegment(%q) = %v, core.HasTraversal = %v", p, got, want)
		}
		if depth > 0 {
			for i := range len(alphabet) {
				walk(p+alphabet[i:i+1], depth-1)
			}
		}
	}
	walk("", 7)
}

// TestQuoteList: findings name granted lists in parentheses, an empty one
// as "(none granted)", so a sentence reads the same either way.
func TestQuoteList(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "(none granted)"},
		{[]string{"/work/"}, `("/work/")`},
		{[]string{"a", "b\n"}, `("a", "b\n")`},
	} {
		if got := quoteList(c.in); got != c.want {
			t.Errorf("quoteList(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}
