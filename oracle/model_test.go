package oracle

import (
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// TestBadArgAgreesWithCore puts a NUL, a high byte, an invalid sequence and
// a valid multi-byte rune at every position of strings of up to 20 bytes,
// of 56 to 104 and of 1,000: the model's reading of a well-formed argument
// must agree with spec.WellFormed.
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
				if got, want := badArg(s), !spec.WellFormed([]string{s}, 1); got != want {
					t.Fatalf("badArg(%q) = %v, core says bad = %v", s, got, want)
				}
			}
		}
	}
	if n < 2000 {
		t.Fatalf("only %d strings", n)
	}
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
