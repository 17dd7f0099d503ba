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
// break), the Unicode line and paragraph separators, the bidirectional
// formatting characters (which reorder what follows them), and the
// invisible characters that make one text read as another (a zero-width
// space: "a\u200b.test" reads as "a.test"; the word joiner and invisible
// operators; a byte-order mark). Other format characters, which scripts
// and emoji are written with (the joiners, a flag's tag characters, a soft
// hyphen), show as what they are part of.
func Unseen(r rune) bool {
	switch {
	case r == '\t':
		return false
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	}
	return Bidi(r) || r == '\u200b' || '\u2060' <= r && r <= '\u2064' || r == '\ufeff'
}

// Bidi reports whether r is a bidirectional formatting character: an
// embedding, override or isolate, or a mark.
func Bidi(r rune) bool {
	return '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069' || r == '\u200e' || r == '\u200f' || r == '\u061c'
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
