package scenario

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// lexSpecial are the bytes and runes the lexer treats apart: ASCII and
// Unicode white space, quotes, escapes, the comment mark, the arrow, a
// byte-order mark and a multi-byte letter.
var lexSpecial = []string{
	" ", "\t", "\v", "\f", "\r", "\u0085", "\u00a0", "\u1680", "\u2000", "\u2028", "\u3000",
	`"`, `\`, `\"`, `\n`, `\x00`, `\u00e9`, `\q`, "#", "=>", "\ufeff", "é", "a", "0",
}

// lexLines returns every line of parserSources, and from a fixed seed
// thousands of those lines with special bytes inserted, replaced or
// removed: valid UTF-8 lines without a newline, what lexLine is given.
func lexLines(t testing.TB) []string {
	var lines []string
	for _, src := range parserSources(t) {
		for line := range strings.Lines(src) {
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		s := lines[r.IntN(len(lines))]
		for range 1 + r.IntN(3) {
			i := r.IntN(len(s) + 1)
			switch sp := lexSpecial[r.IntN(len(lexSpecial))]; r.IntN(3) {
			case 0:
				s = s[:i] + sp + s[i:]
			case 1:
				s = s[:i] + sp + s[min(i+1, len(s)):]
			default:
				s = s[:max(i-1, 0)] + s[i:]
			}
		}
		if utf8.ValidString(s) {
			lines = append(lines, s)
		}
	}
	return lines
}

// TestLexLineIsSlow: the fast lexer gives the reference lexer's tokens,
// comment and error on every line of lexLines.
func TestLexLineIsSlow(t *testing.T) {
	var l lexed
	for _, s := range lexLines(t) {
		checkLexLine(t, s, &l)
	}
}

// FuzzLexLine: the fast lexer gives the reference lexer's tokens, comment
// and error on any valid UTF-8 line.
func FuzzLexLine(f *testing.F) {
	for _, s := range lexLines(f)[:500] {
		f.Add(s)
	}
	var l lexed
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.Contains(s, "\n") {
			return
		}
		checkLexLine(t, s, &l)
	})
}

// checkLexLine compares lexLine on s, lexing into got (what the line
// before left there) as the parser does, with slowLexLine: s alone, and s
// as a line of a larger source, lexed in place as the parser lexes a
// source that is all text (after a line and before one that would lex
// differently, or at the end without a newline). Each must stop at the end
// of s.
func checkLexLine(t testing.TB, s string, got *lexed) {
	t.Helper()
	want, wantErr := slowLexLine(s)
	const before = "a \"b\" c\n"
	for _, src := range []string{s, before + s + "\n\"x d\\\n", before + s} {
		start := 0
		if src != s {
			start = len(before)
		}
		got.src = src
		end, gotErr := lexLine(src, start, got)
		if (gotErr == nil) != (wantErr == nil) ||
			gotErr != nil && (gotErr.near != wantErr.near || gotErr.err.Error() != wantErr.err.Error()) {
			t.Fatalf("lexLine(%q, %d) error %v, the reference's %v on %q", src, start, gotErr, wantErr, s)
		}
		if gotErr != nil {
			continue
		}
		if end != start+len(s) {
			t.Fatalf("lexLine(%q, %d) ends at %d, want %d", src, start, end, start+len(s))
		}
		toks := make([]slowTok, len(got.toks))
		for i, tk := range got.toks {
			toks[i] = slowTok{val: got.val(tk), quoted: tk.quoted}
		}
		if !slices.Equal(toks, want.toks) || got.comment != want.comment || got.comment && got.text != want.text {
			t.Fatalf("lexLine(%q, %d) = %+v (comment %v %q), the reference's %+v", src, start, toks, got.comment, got.text, want)
		}
	}
}

// TestWordStopsIsByteClass: bareEnd's word-at-a-time test flags exactly
// the bytes byteClass does not call word bytes, whatever their neighbours:
// every byte value at every place in a word of one filler byte, for every
// filler, then 200,000 seeded words of random bytes.
func TestWordStopsIsByteClass(t *testing.T) {
	check := func(w [8]byte) {
		got := wordStops(binary.LittleEndian.Uint64(w[:]))
		for k, c := range w {
			if flagged := got>>(8*k+7)&1 == 1; flagged != (byteClass[c] != wordByte) {
				t.Fatalf("wordStops(% x): byte %d (%#x) flagged %v, byteClass says word byte %v", w, k, c, flagged, byteClass[c] == wordByte)
			}
		}
	}
	for filler := range 256 {
		for k := range 8 {
			for c := range 256 {
				var w [8]byte
				for i := range w {
					w[i] = byte(filler)
				}
				w[k] = byte(c)
				check(w)
			}
		}
	}
	r := rand.New(rand.NewPCG(18, 8))
	for range 200000 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], r.Uint64())
		check(w)
	}
}
