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

// lexLine splits s, one valid UTF-8 line without its newline, into tokens,
// appended to buf[:0]: the parser lends the same buffer to every line, so
// lexing allocates nothing but unquoted tokens with escapes.
func lexLine(s string, buf []tok) (lexed, *lexError) {
	l := lexed{toks: buf[:0]}
	for i := skipSpace(s, 0); i < len(s); i = skipSpace(s, i) {
		switch s[i] {
		case '#':
			if len(l.toks) == 0 {
				l.comment, l.text = true, commentText(s[i+1:])
			}
			return l, nil
		case '"':
			t, j, err := lexQuoted(s, i)
			if err != nil {
				return l, err
			}
			l.toks, i = append(l.toks, t), j
		default:
			j := bareEnd(s, i)
			if j < len(s) && s[j] == '"' {
				return l, &lexError{s[i:j], fmt.Errorf("%w: '\"' inside a bare word", ErrUnterminatedQuote)}
			}
			l.toks, i = append(l.toks, tok{val: s[i:j]}), j
		}
	}
	return l, nil
}

// lexQuoted reads the quoted token starting at s[i] == '"' and returns it
// and the index just past it.
func lexQuoted(s string, i int) (tok, int, *lexError) {
	j := i + 1
	for j < len(s) && s[j] != '"' {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(s) {
		return tok{}, 0, &lexError{s[i:], fmt.Errorf("%w: no closing quote", ErrUnterminatedQuote)}
	}
	j++
	v, err := strconv.Unquote(s[i:j])
	if err != nil {
		return tok{}, 0, &lexError{s[i:j], fmt.Errorf("%w: bad escape", ErrUnterminatedQuote)}
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

func isSpaceAt(s string, i int) bool {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiSpace[c]
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// asciiSpace marks the ASCII bytes unicode.IsSpace accepts. The lexer
// decodes a rune only at a byte outside ASCII: nearly every byte of a .sbx
// file is ASCII, and lexing is most of what parsing costs.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func skipSpace(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}

// bareEnd returns the index just past the bare word starting at s[i]: the
// next white space or '"', or the end of s.
func bareEnd(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if c == '"' || asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}
