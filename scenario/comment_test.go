package scenario

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestCommentsWithControlBytesStayText: a comment that quotes a sandbox's
// words (a finding's header: a host of its own choosing, its stderr) with
// a NUL, an escape sequence, a carriage return, a C1 control, a line
// separator or bytes that are no UTF-8 is written as Go escapes: the file
// parses again, formats to itself, and holds no control byte but the
// newline and the tab.
func TestCommentsWithControlBytesStayText(t *testing.T) {
	sc, err := Parse("t.sbx", []byte("grant fs_read /work/\n\nfs_read /work/a\nfs_read /work/b\n"))
	if err != nil {
		t.Fatal(err)
	}
	said := "cause: a host of its own: x.\x00\x1b[2Jev\x0dil\u0085\u2028\xff.test\tend"
	sc.Comment = []string{said}
	sc.Steps[1].Comment = []string{said}
	text := sc.Format()
	for i, r := range string(text) {
		if r == utf8.RuneError || r == '\u2028' || r != '\n' && r != '\t' && unicode.IsControl(r) {
			t.Fatalf("byte %d of the formatted file is %q:\n%q", i, r, text)
		}
	}
	again, err := Parse("t.sbx", text)
	if err != nil {
		t.Fatalf("the formatted file does not parse: %v\n%s", err, text)
	}
	if got := again.Format(); string(got) != string(text) {
		t.Errorf("formatting again changed the file:\n%s\nthen\n%s", text, got)
	}
	if want := `# cause: a host of its own: x.\x00\x1b[2Jev\ril\u0085\u2028\xff.test` + "\tend\n"; !strings.HasPrefix(string(text), want) {
		t.Errorf("header comment:\n%q\nwant it to begin\n%q", text, want)
	}
}
