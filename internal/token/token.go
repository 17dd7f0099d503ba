// Package token writes and reads the tokens of sbxfuzz's text forms: a bare
// word, or a Go double-quoted string when a bare word cannot carry the
// bytes. The .sbx scenario format and the journal's printed entries share it.
package token

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Arrow is the token that separates an op from its expectation. As data it
// must be quoted.
const Arrow = "=>"

// IsBare reports whether s can be written without quotes: non-empty, valid
// UTF-8, only printable non-space runes, no '"', not starting with '#'
// (which would begin a comment) and not the arrow.
func IsBare(s string) bool {
	if s == "" || s == Arrow || s[0] == '#' {
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c <= ' ' || c == '"' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
		i += n
	}
	return true
}

// Format returns s as a token: bare when IsBare, else strconv.Quote(s),
// which writes any byte and which strconv.Unquote reads back.
func Format(s string) string {
	if IsBare(s) {
		return s
	}
	return strconv.Quote(s)
}

// AppendFormat appends Format(s) to b.
func AppendFormat(b []byte, s string) []byte {
	if IsBare(s) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}
