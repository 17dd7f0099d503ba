package scenario

import (
	"errors"
	"strconv"
)

// The sentinels every Parse error unwraps to, besides core.ErrInvalidGrant
// for a grant that core.NewGrant rejects.
var (
	// ErrUnknownDirective is a grant or budget line naming no known list
	// or budget.
	ErrUnknownDirective = errors.New("unknown directive")
	// ErrBadNumber is a number that is not non-negative decimal int64.
	ErrBadNumber = errors.New("bad number")
	// ErrHeaderAfterOp is a header line after the first op.
	ErrHeaderAfterOp = errors.New("header line after an op")
	// ErrUnterminatedQuote is a bad quoted token: no closing quote, a bad
	// escape, a '"' inside a bare word, or no white space after the
	// closing quote.
	ErrUnterminatedQuote = errors.New("bad quoted token")
	// ErrMissingKind is an "=>" with nothing after it.
	ErrMissingKind = errors.New("missing expected kind")
	// ErrUnknownKind is an expected kind that names no core.Kind verdict.
	ErrUnknownKind = errors.New("unknown result kind")
	// ErrArgs is a wrong number of tokens: for a header directive, after
	// the expected data, or an op line that starts with "=>".
	ErrArgs = errors.New("wrong arguments")
	// ErrBadAddr is a dns address that netip.ParseAddr rejects.
	ErrBadAddr = errors.New("bad address")
	// ErrNotText is a line with a NUL byte or invalid UTF-8: a binary file.
	ErrNotText = errors.New("not a text file")
	// ErrUnseen is a character that does not show as itself on a terminal
	// or in a review (a control character but the tab and the newline, a
	// carriage return not before a newline, U+2028, a bidirectional
	// override): it would break, clear or reorder a line, so that an op
	// could hide in a comment or one line read as two.
	ErrUnseen = errors.New("a character that does not show as itself")
)

// maxNear is how many bytes of ParseError.Near its message shows.
const maxNear = 48

// ParseError is the error Parse returns. It reads
// `file:line: reason (near "token")`, without the near part when Near is
// empty, and unwraps to Err, which unwraps to one of the sentinels.
type ParseError struct {
	File string // the name given to Parse
	Line int    // 1-based line of the statement
	Near string // the offending token's value (its raw text if it did not decode), or ""
	Err  error  // the reason
}

// Error returns the message: file:line: reason (near "token").
func (e *ParseError) Error() string {
	reason := "parse error"
	if e.Err != nil {
		reason = e.Err.Error()
	}
	s := e.File + ":" + strconv.Itoa(e.Line) + ": " + reason
	if e.Near == "" {
		return s
	}
	near := e.Near
	if len(near) > maxNear {
		return s + " (near " + strconv.Quote(near[:maxNear]) + "...)"
	}
	return s + " (near " + strconv.Quote(near) + ")"
}

// Unwrap returns Err.
func (e *ParseError) Unwrap() error { return e.Err }
