package proc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnchored: a relative program and the words naming existing files
// are made absolute against the current directory, so that a door that
// runs its process elsewhere still finds them; names on $PATH, flags,
// package names, directories and words naming nothing are left alone.
func TestAnchored(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, f := range []string{filepath.Join("bin", "srv"), "srv.js"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	here, err := os.Getwd() // dir as the system names it (macOS: /private/var/...)
	if err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { return filepath.Join(here, p) }
	for _, tc := range []struct{ argv, want []string }{
		{[]string{filepath.Join("bin", "srv"), "--root", "bin"}, []string{abs(filepath.Join("bin", "srv")), "--root", "bin"}},
		{[]string{"./missing", "x"}, []string{abs("missing"), "x"}},
		{[]string{"node", "srv.js", "nothere.js", "@scope/pkg", "-y"}, []string{"node", abs("srv.js"), "nothere.js", "@scope/pkg", "-y"}},
		{[]string{abs("srv.js"), "srv.js"}, []string{abs("srv.js"), abs("srv.js")}},
	} {
		if diff := cmp.Diff(tc.want, Anchored(tc.argv)); diff != "" {
			t.Errorf("Anchored(%q) (-want +got):\n%s", tc.argv, diff)
		}
	}
}
