package fuzzcheck

import (
	"errors"
	"fmt"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestCheckParseErrorShape: CheckParse's check of a Parse error refuses
// each wrong shape — not a *scenario.ParseError, a line outside the input,
// another file name, no sentinel — and passes a right one. (The fuzz seeds
// only ever give it right ones.)
func TestCheckParseErrorShape(t *testing.T) {
	data := []byte("fs_read /a\nfs_read \"b\n")
	pe := func(file string, line int, err error) error {
		return &scenario.ParseError{File: file, Line: line, Near: "x", Err: err}
	}
	bad := fmt.Errorf("%w: no closing quote", scenario.ErrUnterminatedQuote)
	for _, tc := range []struct {
		reason string
		err    error
		ok     bool
	}{
		{"a right one", pe(parseName, 2, bad), true},
		{"the last line, without a newline after it", pe(parseName, 3, bad), true},
		{"not a ParseError", errors.New("fuzz.sbx:2: bad"), false},
		{"line 0", pe(parseName, 0, bad), false},
		{"a line past the input", pe(parseName, 4, bad), false},
		{"another file name", pe("other.sbx", 2, bad), false},
		{"no sentinel", pe(parseName, 2, errors.New("bad")), false},
	} {
		if err := checkParseError(data, tc.err); (err == nil) != tc.ok {
			t.Errorf("%s: checkParseError = %v, want ok %v", tc.reason, err, tc.ok)
		}
	}
}

// TestCheckLines: steps must carry increasing, positive lines.
func TestCheckLines(t *testing.T) {
	for _, tc := range []struct {
		lines []int
		ok    bool
	}{
		{nil, true}, {[]int{1, 2, 5}, true},
		{[]int{0}, false}, {[]int{2, 2}, false}, {[]int{3, 1}, false},
	} {
		s := scenario.New()
		for _, l := range tc.lines {
			s.Steps = append(s.Steps, scenario.Step{Line: l})
		}
		if err := checkLines(s); (err == nil) != tc.ok {
			t.Errorf("lines %v: checkLines = %v, want ok %v", tc.lines, err, tc.ok)
		}
	}
}
