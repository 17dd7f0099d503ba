package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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
// terminal: control bytes, invalid UTF-8 and other unprintable runes are
// written as Go escapes, so that none moves the cursor, clears the screen
// or starts a line that reads as the harness's.
func inert(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
