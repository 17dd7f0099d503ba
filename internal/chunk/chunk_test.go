package chunk

import (
	"strings"
	"testing"
)

// TestStringsStayValid: every string a Text handed out reads as it did
// when handed out, after the bytes it was copied from change and after
// many more strings (filling and dropping chunks, one longer than
// MaxChunk among them); and strings copied into a chunk with room share it
// rather than allocate.
func TestStringsStayValid(t *testing.T) {
	var text Text
	var got, want []string
	for i := range 3000 {
		s := strings.Repeat(string(rune('a'+i%26)), i%40)
		if i == 1500 {
			s = strings.Repeat("L", MaxChunk+1)
		}
		if i%2 == 0 {
			b := []byte(s)
			got = append(got, text.Copy(b))
			clear(b) // the caller reuses its bytes: the string must not change
		} else {
			got = append(got, text.Concat(s[:len(s)/2], s[len(s)/2:]))
		}
		want = append(want, s)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d reads %q, want %q", i, got[i], want[i])
		}
	}
	var warm Text
	warm.Copy(make([]byte, 64)) // a first chunk of 64 bytes
	if n := testing.AllocsPerRun(100, func() { warm = Text{}; warm.Copy([]byte("x")); warm.Copy([]byte("y")) }); n > 1 {
		t.Errorf("two short strings cost %v allocations, want the chunk's one", n)
	}
}
