package fuzzcheck

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// parseName is the file name CheckParse parses under.
const parseName = "fuzz.sbx"

// parsers recycles the parsers CheckParse parses canonical text with, so
// that each carries its memory from exec to exec.
var parsers = sync.Pool{New: func() any { return new(scenario.Parser) }}

// parseSentinels are the errors every scenario.Parse error must unwrap to
// one of.
var parseSentinels = []error{
	scenario.ErrUnknownDirective, scenario.ErrBadNumber, scenario.ErrHeaderAfterOp,
	scenario.ErrUnterminatedQuote, scenario.ErrMissingKind, scenario.ErrUnknownKind,
	scenario.ErrArgs, scenario.ErrBadAddr, scenario.ErrNotText, scenario.ErrUnseen, core.ErrInvalidGrant,
}

// CheckParse checks the .sbx format on arbitrary input data. When data does
// not parse, the error must be a *scenario.ParseError at a line of data,
// reading "fuzz.sbx:LINE: ", that unwraps to a known sentinel. When it
// parses, the canonical text must parse again (by a scenario.Parser whose
// memory goes from exec to exec) to an equal scenario
// (ignoring lines) and be a fixed point of Format. CheckParse returns an
// error describing the first mismatch, and turns a panic into an error
// carrying the stack; it returns nil when everything holds.
func CheckParse(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	s, perr := scenario.Parse(parseName, data)
	if perr != nil {
		return checkParseError(data, perr)
	}
	if err := checkLines(s); err != nil {
		return err
	}
	out := s.Format()
	// The canonical text is parsed again by a pooled scenario.Parser, so
	// that the fuzzer checks the reusing parser, carrying memory from exec
	// to exec, against Parse.
	p := parsers.Get().(*scenario.Parser)
	defer parsers.Put(p)
	s2, perr := p.Parse(parseName, out)
	if perr != nil {
		return fmt.Errorf("canonical text does not parse: %v\n--- canonical text\n%s", perr, out)
	}
	if !s.Equal(s2) {
		return fmt.Errorf("reparsed scenario differs\n--- first\n%#v\n--- reparsed\n%#v\n--- canonical text\n%s", s, s2, out)
	}
	if out2 := s2.Format(); !bytes.Equal(out, out2) {
		return fmt.Errorf("scenario.Format is not a fixed point\n--- first\n%s--- second\n%s", out, out2)
	}
	return nil
}

// checkParseError checks the shape of a Parse error on data.
func checkParseError(data []byte, err error) error {
	var pe *scenario.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("scenario.Parse error is %T, not *scenario.ParseError: %v", err, err)
	}
	if lines := bytes.Count(data, []byte("\n")) + 1; pe.Line < 1 || pe.Line > lines {
		return fmt.Errorf("scenario.Parse error at line %d of a %d-line input: %v", pe.Line, lines, err)
	}
	if prefix := parseName + ":" + strconv.Itoa(pe.Line) + ": "; !strings.HasPrefix(err.Error(), prefix) {
		return fmt.Errorf("scenario.Parse error %q does not start with %q", err, prefix)
	}
	for _, s := range parseSentinels {
		if errors.Is(err, s) {
			return nil
		}
	}
	return fmt.Errorf("scenario.Parse error unwraps to no sentinel: %v", err)
}

// checkLines checks that parsed steps carry increasing, positive lines.
func checkLines(s *scenario.Scenario) error {
	last := 0
	for i, st := range s.Steps {
		if st.Line <= last {
			return fmt.Errorf("step %d has line %d after line %d", i, st.Line, last)
		}
		last = st.Line
	}
	return nil
}
