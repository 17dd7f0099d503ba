package core

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// TestNameProblemAsWritten: nameProblem, which looks ASCII bytes up in a
// table, says what the rule as written (nameProblemPlain) says, for every
// byte at the start, middle and end of a name, Unicode white space, and
// invalid UTF-8.
func TestNameProblemAsWritten(t *testing.T) {
	var names []string
	for c := range 256 {
		b := string([]byte{byte(c)})
		names = append(names, b, "api"+b, b+".example", "a"+b+"b")
	}
	names = append(names, "", "api.example", "h\u0085st", "h\u00a0st", "h\u2003st", "\u00e9t\u00e9/x", "\xff\xfe", "ok\xc3")
	for _, n := range names {
		if got, want := nameProblem(n), nameProblemPlain(n); got != want {
			t.Errorf("nameProblem(%q) = %q, want %q", n, got, want)
		}
	}
}

// nameProblemPlain is the rule for host and tool names as SPEC §3 words it,
// rune by rune.
func nameProblemPlain(n string) string {
	if n == "" {
		return "is empty"
	}
	for _, c := range n {
		switch {
		case unicode.IsSpace(c):
			return "has white space"
		case c < 0x20 || c == 0x7f:
			return "has a control byte"
		case strings.ContainsRune("/@?#", c):
			return fmt.Sprintf("has %q", c)
		}
	}
	return ""
}
