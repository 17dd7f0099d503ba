package scenario

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseBOM: one leading UTF-8 byte-order mark is ignored, with line
// numbers unchanged; Format never writes one; a second one is text.
func TestParseBOM(t *testing.T) {
	plain := readTestdata(t, "worked_trace.sbx")
	bom := append([]byte("\ufeff"), plain...)
	want := mustParse(t, "worked_trace.sbx", plain)
	got := mustParse(t, "bom.sbx", bom)
	if diff := cmp.Diff(*want, *got, likeEqual); diff != "" {
		t.Errorf("BOM-prefixed worked trace mismatch (-plain +bom):\n%s", diff)
	}
	for i := range want.Steps {
		if got.Steps[i].Line != want.Steps[i].Line {
			t.Errorf("step %d: line %d with a BOM, %d without", i, got.Steps[i].Line, want.Steps[i].Line)
		}
	}
	if out := got.Format(); !bytes.Equal(out, want.Format()) || bytes.HasPrefix(out, []byte("\ufeff")) {
		t.Errorf("Format of the BOM-prefixed trace:\n%s", out)
	}
	_, err := Parse("bom.sbx", []byte("\ufeffgrant fs_read /w/\nfs_read /w/a\ngrant fs_read /x/\n"))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || !errors.Is(err, ErrHeaderAfterOp) {
		t.Errorf("error after a BOM = %v, want line 3 and ErrHeaderAfterOp", err)
	}
	// Only one is dropped: a second is part of the first token, an op kind.
	s := mustParse(t, "bom2.sbx", []byte("\ufeff\ufeffgrant fs_read /w/\n"))
	if len(s.Steps) != 1 || s.Steps[0].Op.Kind != "\ufeffgrant" {
		t.Errorf("two BOMs parse to %+v, want one op of kind \"\\ufeffgrant\"", s.Steps)
	}
	checkRoundTrip(t, "a BOM inside the first token", "\ufeff\ufeffgrant fs_read /w/\n")
}
