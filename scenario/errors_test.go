package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		reason string
		src    string
		want   error
		prefix string // the exact start of the message: file:line:
		near   string // the Near field
	}{
		{"grant of an unknown list", "grant fs_exec /a\n", ErrUnknownDirective, "t.sbx:1: ", "fs_exec"},
		{"budget of an unknown name", "# c\nbudget cpu 5\n", ErrUnknownDirective, "t.sbx:2: ", "cpu"},
		{"a negative number", "budget ops -1\n", ErrBadNumber, "t.sbx:1: ", "-1"},
		{"a signed number", "clock +1 1\n", ErrBadNumber, "t.sbx:1: ", "+1"},
		{"a number past int64", "budget wall 9223372036854775808\n", ErrBadNumber, "t.sbx:1: ", "9223372036854775808"},
		{"a hex number", "clock 0 0x10\n", ErrBadNumber, "t.sbx:1: ", "0x10"},
		{"an empty number", "budget output \"\"\n", ErrBadNumber, "t.sbx:1: ", ""},
		{"a header line after an op", "fs_read /a\nfile /a b\n", ErrHeaderAfterOp, "t.sbx:2: ", "file"},
		{"no closing quote", "fs_read \"/a\n", ErrUnterminatedQuote, "t.sbx:1: ", "\"/a"},
		{"a quote escaped at the end", "fs_read \"/a\\\"\n", ErrUnterminatedQuote, "t.sbx:1: ", "\"/a\\\""},
		{"a bad escape", "\n\nfs_read \"\\q\"\n", ErrUnterminatedQuote, "t.sbx:3: ", "\"\\q\""},
		{"a quote inside a bare word", "fs_read ab\"c\"\n", ErrUnterminatedQuote, "t.sbx:1: ", "ab"},
		{"a quoted token glued to the next", "fs_read \"a\"b\n", ErrUnterminatedQuote, "t.sbx:1: ", "\"a\"b"},
		{"a quoted token glued to a comment", "fs_read \"a\"#c\n", ErrUnterminatedQuote, "t.sbx:1: ", "\"a\"#c"},
		{"an arrow with nothing after", "fs_read /a =>\n", ErrMissingKind, "t.sbx:1: ", "=>"},
		{"an arrow followed by a comment only", "fs_read /a => # later\n", ErrMissingKind, "t.sbx:1: ", "=>"},
		{"an unknown expected kind", "fs_read /a => denied\n", ErrUnknownKind, "t.sbx:1: ", "denied"},
		{"the zero kind is no verdict", "fs_read /a => invalid\n", ErrUnknownKind, "t.sbx:1: ", "invalid"},
		{"kinds are case-sensitive", "fs_read /a => OK\n", ErrUnknownKind, "t.sbx:1: ", "OK"},
		{"two data tokens", "fs_read /a => ok x y\n", ErrArgs, "t.sbx:1: ", "y"},
		{"a second bare arrow as data", "fs_read /a => ok =>\n", ErrArgs, "t.sbx:1: ", "=>"},
		{"an op line starting with the arrow", "=> ok\n", ErrArgs, "t.sbx:1: ", "=>"},
		{"file with one token", "file /a\n", ErrArgs, "t.sbx:1: ", "file"},
		{"route with four tokens", "route h /p b extra\n", ErrArgs, "t.sbx:1: ", "extra"},
		{"redirect without its URL", "redirect h /p\n", ErrArgs, "t.sbx:1: ", "redirect"},
		{"clock with one number", "clock 5\n", ErrArgs, "t.sbx:1: ", "clock"},
		{"toolout with none", "toolout\n", ErrArgs, "t.sbx:1: ", "toolout"},
		{"budget with three tokens", "budget ops 1 2\n", ErrArgs, "t.sbx:1: ", "2"},
		{"grant with no list", "grant\n", ErrArgs, "t.sbx:1: ", "grant"},
		{"grant with no items", "grant tool\n", ErrArgs, "t.sbx:1: ", "tool"},
		{"dns with no address", "dns h\n", ErrArgs, "t.sbx:1: ", "dns"},
		{"dns with a bad address", "dns h 10.0.0.1 256.0.0.1\n", ErrBadAddr, "t.sbx:1: ", "256.0.0.1"},
		{"dns takes no inet_aton spellings", "dns h 127.1\n", ErrBadAddr, "t.sbx:1: ", "127.1"},
		{"a NUL byte", "fs_read /a\nfs_read /a\x00b\n", ErrNotText, "t.sbx:2: ", ""},
		{"a NUL byte inside quotes", "fs_read \"\x00\"\n", ErrNotText, "t.sbx:1: ", ""},
		{"invalid UTF-8", "\xff\xfe binary", ErrNotText, "t.sbx:1: ", ""},
		{"invalid UTF-8 in a comment", "# \xc3\n", ErrNotText, "t.sbx:1: ", ""},
		{"a carriage return inside an op line", "fs_read /a\rfs_write /etc/x y\n", ErrUnseen, "t.sbx:1: ", ""},
		{"a line separator", "fs_read /a\u2028fs_read /b\n", ErrUnseen, "t.sbx:1: ", ""},
		{"a form feed between tokens", "fs_read\f/a\n", ErrUnseen, "t.sbx:1: ", ""},
		{"a NEL between ops", "fs_read /a\u0085fs_read /b\n", ErrUnseen, "t.sbx:1: ", ""},
		{"a right-to-left override in an op", "fs_read /work/\u202edcba\n", ErrUnseen, "t.sbx:1: ", ""},
		{"an Arabic letter mark in an op", "fs_read /work/\u061ca\n", ErrUnseen, "t.sbx:1: ", ""},
		{"a carriage return before a comment's #", "fs_read /a\r# note\n", ErrUnseen, "t.sbx:1: ", ""},
		{"a relative fs_read root", "grant fs_read /ok relative\n", core.ErrInvalidGrant, "t.sbx:1: ", "relative"},
		{"a traversing fs_write root", "grant fs_read /a\ngrant fs_write /a/../b\n", core.ErrInvalidGrant, "t.sbx:2: ", "/a/../b"},
		{"a NUL in a root", "grant fs_read \"/a\\x00\"\n", core.ErrInvalidGrant, "t.sbx:1: ", "/a\x00"},
		{"a host with '@'", "grant net user@host\n", core.ErrInvalidGrant, "t.sbx:1: ", "user@host"},
		{"a tool with white space", "grant tool \"a b\"\n", core.ErrInvalidGrant, "t.sbx:1: ", "a b"},
		{"an empty tool", "grant tool \"\"\n", core.ErrInvalidGrant, "t.sbx:1: ", ""},
	} {
		s, err := Parse("t.sbx", []byte(tc.src))
		if err == nil {
			t.Errorf("%s: Parse(%q) = %+v, want an error", tc.reason, tc.src, s)
			continue
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Parse(%q) error %q does not unwrap to %q", tc.reason, tc.src, err, tc.want)
		}
		if !strings.HasPrefix(err.Error(), tc.prefix) {
			t.Errorf("%s: Parse(%q) error %q does not start with %q", tc.reason, tc.src, err, tc.prefix)
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: Parse(%q) error %T is not a *ParseError", tc.reason, tc.src, err)
		} else if pe.Near != tc.near {
			t.Errorf("%s: Parse(%q) Near = %q, want %q", tc.reason, tc.src, pe.Near, tc.near)
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		reason string
		err    *ParseError
		want   string
	}{
		{"near is quoted", &ParseError{"a.sbx", 3, "x y", ErrArgs}, `a.sbx:3: wrong arguments (near "x y")`},
		{"no near part without a token", &ParseError{"a.sbx", 1, "", ErrNotText}, `a.sbx:1: not a text file`},
		{"long tokens are cut", &ParseError{"a.sbx", 2, strings.Repeat("z", 100), ErrBadNumber},
			`a.sbx:2: bad number (near "` + strings.Repeat("z", maxNear) + `"...)`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%s: Error() = %q, want %q", tc.reason, got, tc.want)
		}
	}
	_, err := Parse("b.sbx", []byte("fs_read /a => nope\n"))
	if want := `b.sbx:1: unknown result kind: want ok, fs_read_denied, max_ops, ... (near "nope")`; err == nil || err.Error() != want {
		t.Errorf("Parse error = %v, want %s", err, want)
	}
}

// TestNotTextColumn: a NUL byte or invalid UTF-8 shows as nothing, or as
// one replacement character among many, in an editor or a review: the
// error names the column (1-based, in bytes, as Go's tools count) of the
// first such byte in its line.
func TestNotTextColumn(t *testing.T) {
	long := strings.Repeat("a", 200)
	for _, tc := range []struct {
		reason, src, want string
	}{
		{"a NUL byte", "fs_read /a\nfs_read /a\x00b\n", "t.sbx:2: not a text file: NUL byte at column 11"},
		{"a NUL byte deep in a long token", "# c\nfs_read /" + long + "\x00\n", "t.sbx:2: not a text file: NUL byte at column 210"},
		{"invalid UTF-8 after valid runes", "fs_read \"éé\xff\"\n", "t.sbx:1: not a text file: invalid UTF-8 at column 14"},
		{"the first of both counts", "fs_read \xff\x00\n", "t.sbx:1: not a text file: invalid UTF-8 at column 9"},
		{"after a byte-order mark", "\ufefffs_read \x00\n", "t.sbx:1: not a text file: NUL byte at column 9"},
	} {
		_, err := Parse("t.sbx", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: Parse(%q) error %v, want %s", tc.reason, tc.src, err, tc.want)
		}
	}
}
