// Package chunk copies many short strings into a few shared allocations.
// The parser copies each fuzz input's text, the fuzz decoder its bytes,
// and the generators their concatenated paths: one allocation each, per
// input or per op, was a large part of what they allocated.
package chunk

import "strings"

// MaxChunk bounds the chunks Text makes for strings shorter than it: the
// strings of a few dozen fuzz inputs, and no more than the runtime
// allocates from its per-thread caches (larger objects cost a trip to the
// page heap).
const MaxChunk = 16 << 10

// Text hands out strings copied one after another into a chunk that only
// ever grows: a byte it has handed out is never rewritten, so a string it
// returned stays valid whatever is copied after it, and a string costs a
// copy but, most times, no allocation. A full chunk is dropped, not reset:
// it stays alive as long as a string in it does. Chunks double from the
// first string's size up to MaxChunk, so that a Text used once allocates
// no more than that string. The zero Text is ready to use; a Text is not
// safe for concurrent use.
type Text struct{ b strings.Builder }

// room makes sure the current chunk has n bytes free.
func (t *Text) room(n int) {
	if size := t.b.Cap(); size-t.b.Len() < n {
		t.b = strings.Builder{} // the full chunk stays with the strings in it
		t.b.Grow(max(n, min(2*size, MaxChunk)))
	}
}

// Copy returns p as a string.
func (t *Text) Copy(p []byte) string {
	t.room(len(p))
	start := t.b.Len()
	t.b.Write(p)
	return t.b.String()[start:]
}

// Concat returns the concatenation of parts, as one string.
func (t *Text) Concat(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	t.room(n)
	start := t.b.Len()
	for _, p := range parts {
		t.b.WriteString(p)
	}
	return t.b.String()[start:]
}
