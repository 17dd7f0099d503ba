package scenario

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/internal/inert"
	"github.com/sbxfuzz/sbxfuzz/internal/token"
)

// tok is one token: where its value is in its source, and whether it was
// written quoted. Only a bare token can be the arrow or a header word. A
// tok holds no pointer (lexed.val makes the string): the parser lexes every
// line into the same buffer, and while the garbage collector marks, every
// pointer written to memory costs a write barrier.
type tok struct {
	start, end int  // the value is src[start:end] (inside the quotes), unless unquoted
	unquoted   int  // for a quoted token with escapes, 1 + the index of its value in lexed.unquoted; else 0
	quoted     bool // written quoted
}

// lexed is one source line split into tokens. A full-line comment has no
// tokens, comment set, and its text (text is meaningless otherwise).
type lexed struct {
	src      string // what the tokens index: the line's source (the whole text, or the line alone)
	toks     []tok
	unquoted []string // the values of quoted tokens with escapes
	comment  bool
	text     string
	// code is where in src the line's statement ends: at the '#' of its
	// comment (a whole line's or a trailing one), else at the line's end.
	code int
}

// val returns the value of t, one of l.toks.
func (l *lexed) val(t tok) string {
	if t.unquoted > 0 {
		return l.unquoted[t.unquoted-1]
	}
	return l.src[t.start:t.end]
}

// isArrow reports whether t, one of l.toks, is the bare arrow that starts
// an expectation.
func (l *lexed) isArrow(t tok) bool { return !t.quoted && l.val(t) == token.Arrow }

// lexError is a lexing failure: the sentinel-wrapping reason and the token
// it is near. The parser adds file and line.
type lexError struct {
	near string
	err  error
}

// isText reports whether s is valid UTF-8 with no NUL byte and no
// character that breaks or reorders a line where the parser sees no line
// break (breaksLine), a carriage return allowed only before a newline:
// the rule of checkText and checkBreaks over a whole source, in one pass
// that decodes only the runes that may be such characters. A source that
// is not is checked line by line, where a comment may hold anything but
// NUL and invalid UTF-8.
func isText(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 0, c == '\v', c == '\f':
			return false
		case c == '\r':
			if i+1 < len(s) && s[i+1] != '\n' {
				return false
			}
		case c == 0xc2 || c == 0xd8 || c == 0xe2:
			// The lead bytes of NEL (U+0085), U+061C, and the separators
			// and bidirectional formatting characters of U+2000-U+206F.
			r, n := utf8.DecodeRuneInString(s[i:])
			if breaksLine(r) {
				return false
			}
			i += n - 1
		}
	}
	return utf8.ValidString(s)
}

// breaksLine reports whether r shows as a line break, or reorders what
// follows it, on a terminal or in a review, where the parser sees none:
// a carriage return, a vertical tab, a form feed, NEL, the Unicode line
// and paragraph separators, a bidirectional formatting character. In a
// statement it would make one line read as two, or hide an op; it is
// refused there (ErrUnseen). Other control characters are a token's bytes,
// as they always were, and Format writes them quoted.
func breaksLine(r rune) bool {
	switch r {
	case '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
		return true
	}
	return inert.Bidi(r)
}

// unseenNames name the characters breaksLine reports.
var unseenNames = map[rune]string{'\r': "carriage return", '\v': "vertical tab", '\f': "form feed", '\u0085': "NEL",
	'\u2028': "line separator", '\u2029': "paragraph separator"}

// checkText returns an error when s, one line (its newline left out), is
// not text: a NUL byte or invalid UTF-8 (ErrNotText), naming the column
// (1-based, in bytes) of the first such byte.
func checkText(s string) error {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return nil
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0:
			return fmt.Errorf("%w: NUL byte at column %d", ErrNotText, i+1)
		case r == utf8.RuneError && n == 1:
			return fmt.Errorf("%w: invalid UTF-8 at column %d", ErrNotText, i+1)
		}
		i += n
	}
	return nil
}

// checkBreaks returns ErrUnseen, naming its column, for the first
// character of line before code (where its statement ends: lexed.code)
// that breaks or reorders the line where the parser sees none
// (breaksLine), the carriage return that ends a CRLF line aside. A comment
// may hold such characters: a file an older sbxfuzz wrote quotes a
// sandbox's words raw in its header, and the parser reads them escaped
// (commentText), as Format writes them.
func checkBreaks(line string, code int) error {
	for i, r := range line[:code] {
		if breaksLine(r) && (r != '\r' || i+1 < len(line)) {
			name := unseenNames[r]
			if name == "" {
				name = "bidirectional formatting character"
			}
			return fmt.Errorf("%w: %s %U at column %d", ErrUnseen, name, r, i+1)
		}
	}
	return nil
}

// lexLine splits the line of s that starts at s[i], up to the next newline
// or the end of s, into l, its tokens appended to l.toks[:0], and returns
// the index of that newline (or len(s)). l.src must be s. s is valid UTF-8:
// the whole source, whose lines need no check, or one line alone. Lexing
// the source in place, not line by line, spares finding each line's end
// before lexing it, and lets the word-at-a-time loop of bareEnd read on
// past it. The parser lexes every line into the same lexed, so lexing
// allocates nothing but unquoted tokens with escapes. (The lists grow in
// local variables, stored into l once: a slice stored into memory a pointer
// leads to costs a write barrier while the garbage collector marks, one a
// token otherwise.)
func lexLine(s string, i int, l *lexed) (end int, err *lexError) {
	toks, unquoted := l.toks[:0], l.unquoted[:0]
	comment, text, code := false, "", -1
	i = skipSpace(s, i)
loop:
	for i < len(s) {
		switch s[i] {
		case '\n':
			break loop
		case '#':
			if len(toks) == 0 {
				comment, text = true, commentText(s[i+1:lineEnd(s, i)])
			}
			code, i = i, lineEnd(s, i)
			break loop
		case '"':
			v, escaped, j, qerr := lexQuoted(s, i)
			if qerr != nil {
				err = qerr
				break loop
			}
			t := tok{start: i + 1, end: j - 1, quoted: true}
			if escaped {
				unquoted = append(unquoted, v)
				t.unquoted = len(unquoted)
			}
			toks, i = append(toks, t), j
		default:
			j := bareEnd(s, i)
			if j < len(s) && s[j] == '"' {
				err = &lexError{s[i:j], fmt.Errorf("%w: '\"' inside a bare word", ErrUnterminatedQuote)}
				break loop
			}
			toks, i = append(toks, tok{start: i, end: j}), j
		}
		// Most tokens are followed by one space and a word, or end the
		// line: no call for those.
		if i+1 < len(s) && s[i] == ' ' && byteClass[s[i+1]] == wordByte {
			i++
		} else if i < len(s) && s[i] != '\n' {
			i = skipSpace(s, i)
		}
	}
	// Stored into l only what changed. While the garbage collector
	// marks, storing a pointer costs a write barrier, which looks up both
	// the old and the new object, even when they are the same: the lists
	// move only when they grow (a same capacity is the same array), and a
	// line that is no comment has no text to store. (l.src is the
	// caller's to set, once a source.)
	if cap(toks) == cap(l.toks) {
		l.toks = l.toks[:len(toks)] // the length alone: no pointer written
	} else {
		l.toks = toks
	}
	if cap(unquoted) == cap(l.unquoted) {
		l.unquoted = l.unquoted[:len(unquoted)]
	} else {
		l.unquoted = unquoted
	}
	l.comment = comment
	if comment {
		l.text = text
	}
	if code < 0 {
		code = i
	}
	l.code = code
	return i, err
}

// lineEnd returns the index of the first newline at or after s[i], or
// len(s).
func lineEnd(s string, i int) int {
	if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(s)
}

// lexQuoted reads the quoted token starting at s[i] == '"', in its line
// (up to the next newline or the end of s): it returns the index just
// past it and, when the token has escapes, its value. A token without a
// backslash is its bytes between the quotes, as strconv.Unquote would
// return them (s is valid UTF-8, and the token has no newline), so only
// one with escapes is unquoted.
func lexQuoted(s string, i int) (unquoted string, escaped bool, end int, err *lexError) {
	j := i + 1
	for j < len(s) && s[j] != '"' && s[j] != '\n' {
		if s[j] == '\\' {
			escaped = true
			if j+1 < len(s) && s[j+1] != '\n' {
				j++ // the escaped byte cannot close the token, but the line's end ends it
			}
		}
		j++
	}
	if j >= len(s) || s[j] != '"' {
		return "", false, 0, &lexError{s[i:lineEnd(s, i)], fmt.Errorf("%w: no closing quote", ErrUnterminatedQuote)}
	}
	j++
	if escaped {
		v, uerr := strconv.Unquote(s[i:j])
		if uerr != nil {
			return "", false, 0, &lexError{s[i:j], fmt.Errorf("%w: bad escape", ErrUnterminatedQuote)}
		}
		unquoted = v
	}
	if j < len(s) && !isSpaceAt(s, j) {
		return "", false, 0, &lexError{s[i:lineEnd(s, i)], fmt.Errorf("%w: no white space after the closing quote", ErrUnterminatedQuote)}
	}
	return unquoted, escaped, j, nil
}

// commentText is the text of a comment whose '#' preceded s: s without one
// leading space and without trailing white space, with what does not show
// as itself written as Go escapes (package inert), as Format writes it: a
// header quoting a sandbox's words raw, from a file written before Format
// escaped them, reads as Format writes it now, and formats to itself.
func commentText(s string) string {
	s = strings.TrimPrefix(s, " ")
	return inert.String(strings.TrimRightFunc(s, unicode.IsSpace))
}

// The lexer's byte classes. Nearly every byte of a .sbx file is ASCII, and
// lexing is most of what parsing costs, so the loops look each byte up in
// byteClass, one load where a chain of comparisons would cost several (and,
// under a fuzzer's comparison instrumentation, a callback each), and decode
// a rune only at a byte outside ASCII.
const (
	wordByte    = iota // ASCII that goes on a bare word
	spaceByte          // ASCII white space, as unicode.IsSpace has it
	quoteByte          // '"', which ends a bare word
	runeByte           // a byte of a multi-byte rune: decode the rune to tell
	newlineByte        // '\n': white space that ends the line, where skipping space stops
)

var byteClass = func() (c [256]uint8) {
	for b := range c {
		switch {
		case b >= utf8.RuneSelf:
			c[b] = runeByte
		case b == '"':
			c[b] = quoteByte
		case b == '\n':
			c[b] = newlineByte
		case unicode.IsSpace(rune(b)):
			c[b] = spaceByte
		}
	}
	return c
}()

// isSpaceAt reports whether the rune at s[i] is white space (a newline
// included).
func isSpaceAt(s string, i int) bool {
	switch byteClass[s[i]] {
	case spaceByte, newlineByte:
		return true
	case runeByte:
		r, _ := utf8.DecodeRuneInString(s[i:])
		return unicode.IsSpace(r)
	}
	return false
}

// skipSpace returns the index of the first rune at or after s[i] that is
// not white space or is a newline, or len(s).
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
// next white space (a newline included) or '"', or the end of s. It reads
// eight bytes at a time while they are all word bytes (wordStops), then
// byte by byte.
func bareEnd(s string, i int) int {
	for {
		stopped := false
		for i+8 <= len(s) {
			if stop := wordStops(binary.LittleEndian.Uint64([]byte(s[i : i+8]))); stop != 0 {
				i += bits.TrailingZeros64(stop) >> 3 // the first byte that is no word byte
				stopped = true
				break
			}
			i += 8
		}
		if !stopped { // fewer than eight bytes left: byte by byte
			for i < len(s) && byteClass[s[i]] == wordByte {
				i++
			}
		}
		// s[i] is no word byte: white space, a quote or a newline end the
		// word; a byte of a multi-byte rune is decoded to tell.
		if i == len(s) || s[i] < utf8.RuneSelf {
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return i
		}
		i += n
	}
}

// wordStops returns the high bit of every byte of x (eight bytes of a
// line, little-endian) that is not a wordByte: a byte from 0x80 up, ASCII
// white space (0x09–0x0D, 0x20) or '"' (0x22). Each range test adds to
// the low seven bits of a byte a constant that carries into its high bit
// exactly from the range's first byte on, so no carry crosses bytes and
// no byte is flagged wrongly. (Written out, without helper closures, so
// that it is cheap enough for the compiler to inline into bareEnd's loop.)
func wordStops(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	y := x &^ hi
	// y + lo*(0x80-c) has a byte's high bit set where its low bits are >= c.
	tab := (y + lo*(0x80-0x09)) &^ (y + lo*(0x80-0x0e))   // 0x09–0x0D
	space := (y + lo*(0x80-0x20)) &^ (y + lo*(0x80-0x21)) // 0x20
	quote := (y + lo*(0x80-0x22)) &^ (y + lo*(0x80-0x23)) // 0x22
	return (x | tab | space | quote) & hi
}
