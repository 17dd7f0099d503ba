// Package inert writes text a sandbox chose (its stderr's last words, a
// host name of its own, a panic's message) so that it shows as what it
// is wherever the harness prints or files it: on a terminal, in a
// scenario file's comment, in an error. A character that would not show
// as itself — one that moves the cursor, clears the screen, breaks or
// reorders a line — is written as a Go escape.
package inert

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Unseen reports whether r does not show as itself in a line of text: a
// control character but the tab (a newline included: the line would
// break), the Unicode line and paragraph separators, and the format
// characters (the bidirectional ones, which reorder what follows them; a
// zero-width space, which makes "a\u200b.test" read as "a.test"; a soft
// hyphen) but the zero-width joiner and non-joiner, which emoji and some
// scripts are written with.
func Unseen(r rune) bool {
	switch {
	case r == '\t', r == '\u200c', r == '\u200d':
		return false
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// String is s with each unseen rune (Unseen), and each byte that is no
// UTF-8, written as a Go escape: "\x1b", "\n", "\u2028", "\xff".
func String(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c >= 0x7f {
			return string(Append(make([]byte, 0, len(s)+8), s))
		}
	}
	return s
}

// Append appends String(s) to b.
func Append(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\x`...)
			b = append(b, "0123456789abcdef"[s[i]>>4], "0123456789abcdef"[s[i]&15])
		case Unseen(r):
			q := strconv.QuoteRune(r)
			b = append(b, q[1:len(q)-1]...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}
