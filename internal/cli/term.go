package cli

import (
	"io"
	"os"

	textinert "github.com/sbxfuzz/sbxfuzz/internal/inert"
)

// isTerminal reports whether w is a character device, such as a terminal:
// live progress is drawn only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// inert is a sandbox's words (a finding's detail: the tail of its
// stderr, a panic's or an error's message) made safe on one line of a
// terminal (package inert): control characters, line separators,
// bidirectional overrides and invalid UTF-8 are written as Go escapes, so
// that none moves the cursor, clears the screen or starts a line that
// reads as the harness's.
func inert(s string) string { return textinert.String(s) }
