package spectable

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadResolve: hosts are unquoted (the empty one and escapes
// included), reasons keep their words, comments and blank lines are
// skipped; a line without a quoted host, an address or a reason, and a
// file without a case, are errors that name the file and line.
func TestReadResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		f := filepath.Join(dir, "t.txt")
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	got, err := ReadResolve(write("# a comment\n\n\"\"  203.0.113.1  the empty name\n\"a b\\u212a\" ::1 two  words\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Resolve{
		{"", netip.MustParseAddr("203.0.113.1"), "the empty name"},
		{"a b\u212a", netip.MustParseAddr("::1"), "two words"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("ReadResolve = %+v, want %+v", got, want)
	}
	for _, bad := range []string{"bare 1.2.3.4 why\n", "\"h\" 1.2.3.4\n", "\"h\" 1.2.3 why\n", "# nothing\n"} {
		if _, err := ReadResolve(write(bad)); err == nil || !strings.Contains(err.Error(), "t.txt") {
			t.Errorf("ReadResolve(%q) = %v, want an error naming the file", bad, err)
		}
	}
}

// TestCoreTable: the shared table reads, and holds the SPEC's examples.
func TestCoreTable(t *testing.T) {
	cases, err := ReadResolve("../spec/testdata/static-resolve.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d cases", len(cases))
	}
}
