package netns

import (
	"strings"
	"testing"
)

// TestStderrKeepsItsLastWords: a command that logs far more than it may
// keep, then says why it fails, has its first and its last words kept,
// and what was cut between them is said.
func TestStderrKeepsItsLastWords(t *testing.T) {
	h := newHeadTail(64)
	h.Write([]byte("starting\n"))
	for range 1000 {
		h.Write([]byte("INFO request served\n"))
	}
	h.Write([]byte("FATAL: out of file descriptors\n"))
	got := h.String()
	if !strings.HasPrefix(got, "starting\n") || !strings.HasSuffix(got, "FATAL: out of file descriptors\n") {
		t.Errorf("kept %q; want the first words and the last", got)
	}
	if !strings.Contains(got, "bytes cut ...]") || !h.cut() {
		t.Errorf("kept %q, cut %v; want a line saying what was cut", got, h.cut())
	}
	if kept := len(got) - len(cutLine(got)); kept != 64 {
		t.Errorf("kept %d bytes of output; want 64", kept)
	}
}

// TestStderrUncutIsWhole: stderr within the bound is kept as written,
// with no line about a cut.
func TestStderrUncutIsWhole(t *testing.T) {
	h := newHeadTail(64)
	for _, w := range []string{"one\n", "two\n", strings.Repeat("x", 50)} {
		h.Write([]byte(w))
	}
	if got, want := h.String(), "one\ntwo\n"+strings.Repeat("x", 50); got != want || h.cut() {
		t.Errorf("kept %q, cut %v; want %q, not cut", got, h.cut(), want)
	}
}

// cutLine is the line String puts between the first and the last bytes.
func cutLine(s string) string {
	i := strings.Index(s, "\n[... ")
	j := strings.Index(s, " ...]\n")
	if i < 0 || j < 0 {
		return ""
	}
	return s[i : j+len(" ...]\n")]
}
