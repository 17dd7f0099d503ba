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

// TestCommentsReadInert: a comment may hold what does not show as itself
// (a file sbxfuzz wrote before Format escaped a header's quoted words, or
// one written by hand): it parses, its text read with those characters as
// Go escapes, as Format writes them, so the file formats to a fixed point
// that shows as it is. Before a comment the same characters are errors.
func TestCommentsReadInert(t *testing.T) {
	for _, tc := range []struct{ src, comment string }{
		{"# note\rfs_read /etc/passwd\nfs_read /a\n", `note\rfs_read /etc/passwd`},
		{"# ok\vfs_read /etc/passwd\nfs_read /a\n", `ok\vfs_read /etc/passwd`},
		{"# \x1b[1A\x1b[2Kread the workspace\nfs_read /a\n", `\x1b[1A\x1b[2Kread the workspace`},
		{"# a\u0085b \u202efs_read\nfs_read /a\n", `a\u0085b \u202efs_read`},
		{"fs_read /a # \x1b[2J trailing, dropped\nfs_read /b\n", ""},
		{"fs_read /a\u00a0# after a no-break space \u202eab\nfs_read /b\n", ""},
		{"fs_read /a # \r# a carriage return in a trailing comment\nfs_read /b\n", ""},
	} {
		sc, err := Parse("t.sbx", []byte(tc.src))
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		var got string // the header's comment, or the first step's
		if cs := append(sc.Comment, sc.Steps[0].Comment...); len(cs) > 0 {
			got = cs[0]
		}
		if got != tc.comment {
			t.Errorf("Parse(%q): comment %q, want %q", tc.src, got, tc.comment)
		}
		text := sc.Format()
		again, err := Parse("t.sbx", text)
		if err != nil || string(again.Format()) != string(text) {
			t.Errorf("Parse(%q) formats to %q, which does not format to itself (%v)", tc.src, text, err)
		}
	}
}
