package scenario

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// slowTok is a token as the reference lexer gives it: its value, and
// whether it was written quoted.
type slowTok struct {
	val    string
	quoted bool
}

// slowLexed is a line as the reference lexer gives it.
type slowLexed struct {
	toks    []slowTok
	comment bool
	text    string
}

// slowLexLine is lexLine written as plainly as SPEC §10 reads, rune by
// rune with unicode.IsSpace and strconv.Unquote for every quoted token:
// the reference the fast lexer is tested and fuzzed against (lex_test.go).
// It returns the tokens, or the error lexLine must return.
func slowLexLine(s string) (slowLexed, *lexError) {
	var l slowLexed
	i := 0
	for {
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += n
		}
		if i == len(s) {
			return l, nil
		}
		switch s[i] {
		case '#':
			if len(l.toks) == 0 {
				l.comment, l.text = true, commentText(s[i+1:])
			}
			return l, nil
		case '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++ // the escaped byte cannot close the token
				}
				j++
			}
			if j >= len(s) {
				return l, &lexError{s[i:], fmt.Errorf("%w: no closing quote", ErrUnterminatedQuote)}
			}
			j++
			v, err := strconv.Unquote(s[i:j])
			if err != nil {
				return l, &lexError{s[i:j], fmt.Errorf("%w: bad escape", ErrUnterminatedQuote)}
			}
			if r, _ := utf8.DecodeRuneInString(s[j:]); j < len(s) && !unicode.IsSpace(r) {
				return l, &lexError{s[i:], fmt.Errorf("%w: no white space after the closing quote", ErrUnterminatedQuote)}
			}
			l.toks, i = append(l.toks, slowTok{val: v, quoted: true}), j
		default:
			j := i
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if r == '"' || unicode.IsSpace(r) {
					break
				}
				j += n
			}
			if j < len(s) && s[j] == '"' {
				return l, &lexError{s[i:j], fmt.Errorf("%w: '\"' inside a bare word", ErrUnterminatedQuote)}
			}
			l.toks, i = append(l.toks, slowTok{val: s[i:j]}), j
		}
	}
}
