package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/internal/token"
)

// tok is one token: its value, and whether it was written quoted. Only a
// bare token can be the arrow or a header word.
type tok struct {
	val    string
	quoted bool
}

// isArrow reports whether t is the bare arrow that starts an expectation.
func (t tok) isArrow() bool { return !t.quoted && t.val == token.Arrow }

// lexed is one source line split into tokens. A full-line comment has no
// tokens, comment set, and its text.
type lexed struct {
	toks    []tok
	comment bool
	text    string
}

// lexError is a lexing failure: the sentinel-wrapping reason and the token
// it is near. The parser adds file and line.
type lexError struct {
	near string
	err  error
}

// checkText returns an error when s, one line, has a NUL byte or invalid
// UTF-8.
func checkText(s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%w: NUL byte", ErrNotText)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: invalid UTF-8", ErrNotText)
	}
	return nil
}

// lexLine splits s, one valid UTF-8 line without its newline, into l,
// its tokens appended to l.toks[:0]: the parser lexes every line into the
// same lexed, so lexing allocates nothing but unquoted tokens with escapes.
func lexLine(s string, l *lexed) *lexError {
	l.toks, l.comment, l.text = l.toks[:0], false, ""
	for i := skipSpace(s, 0); i < len(s); i = skipSpace(s, i) {
		switch s[i] {
		case '#':
			if len(l.toks) == 0 {
				l.comment, l.text = true, commentText(s[i+1:])
			}
			return nil
		case '"':
			t, j, err := lexQuoted(s, i)
			if err != nil {
				return err
			}
			l.toks, i = append(l.toks, t), j
		default:
			j := bareEnd(s, i)
			if j < len(s) && s[j] == '"' {
				return &lexError{s[i:j], fmt.Errorf("%w: '\"' inside a bare word", ErrUnterminatedQuote)}
			}
			l.toks, i = append(l.toks, tok{val: s[i:j]}), j
		}
	}
	return nil
}

// lexQuoted reads the quoted token starting at s[i] == '"' and returns it
// and the index just past it. A token without a backslash is its bytes
// between the quotes, as strconv.Unquote would return them (s is valid
// UTF-8 and has no newline), so only one with escapes is unquoted.
func lexQuoted(s string, i int) (tok, int, *lexError) {
	j := i + 1
	escaped := false
	for j < len(s) && s[j] != '"' {
		if s[j] == '\\' {
			escaped = true
			j++ // the escaped byte cannot close the token
		}
		j++
	}
	if j >= len(s) {
		return tok{}, 0, &lexError{s[i:], fmt.Errorf("%w: no closing quote", ErrUnterminatedQuote)}
	}
	j++
	v := s[i+1 : j-1]
	if escaped {
		var err error
		if v, err = strconv.Unquote(s[i:j]); err != nil {
			return tok{}, 0, &lexError{s[i:j], fmt.Errorf("%w: bad escape", ErrUnterminatedQuote)}
		}
	}
	if j < len(s) && !isSpaceAt(s, j) {
		return tok{}, 0, &lexError{s[i:], fmt.Errorf("%w: no white space after the closing quote", ErrUnterminatedQuote)}
	}
	return tok{val: v, quoted: true}, j, nil
}

// commentText is the text of a comment whose '#' preceded s: s without one
// leading space and without trailing white space.
func commentText(s string) string {
	s = strings.TrimPrefix(s, " ")
	return strings.TrimRightFunc(s, unicode.IsSpace)
}

// The lexer's byte classes. Nearly every byte of a .sbx file is ASCII, and
// lexing is most of what parsing costs, so the loops look each byte up in
// byteClass, one load where a chain of comparisons would cost several (and,
// under a fuzzer's comparison instrumentation, a callback each), and decode
// a rune only at a byte outside ASCII.
const (
	wordByte  = iota // ASCII that goes on a bare word
	spaceByte        // ASCII white space, as unicode.IsSpace has it
	quoteByte        // '"', which ends a bare word
	runeByte         // a byte of a multi-byte rune: decode the rune to tell
)

var byteClass = func() (c [256]uint8) {
	for b := range c {
		switch {
		case b >= utf8.RuneSelf:
			c[b] = runeByte
		case b == '"':
			c[b] = quoteByte
		case unicode.IsSpace(rune(b)):
			c[b] = spaceByte
		}
	}
	return c
}()

// isSpaceAt reports whether the rune at s[i] is white space.
func isSpaceAt(s string, i int) bool {
	switch byteClass[s[i]] {
	case spaceByte:
		return true
	case runeByte:
		r, _ := utf8.DecodeRuneInString(s[i:])
		return unicode.IsSpace(r)
	}
	return false
}

// skipSpace returns the index of the first rune at or after s[i] that is
// not white space, or len(s).
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch byteClass[s[i]] {
		case spaceByte:
			i++
		case runeByte:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				return i
			}
			i += n
		default:
			return i
		}
	}
	return i
}

// bareEnd returns the index just past the bare word starting at s[i]: the
// next white space or '"', or the end of s.
func bareEnd(s string, i int) int {
	for {
		for i < len(s) && byteClass[s[i]] == wordByte {
			i++
		}
		if i == len(s) || byteClass[s[i]] != runeByte {
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return i
		}
		i += n
	}
}
