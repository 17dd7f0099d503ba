package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestAnchoredCommand: a command whose relative program or script Anchored
// makes absolute is written back with them absolute, each word quoted as a
// shell reads it, and splits back into the anchored words; one with none
// is returned as it is.
func TestAnchoredCommand(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("my srv.js", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"node 'my srv.js' --root \"it's\"", "./bin/srv -x"} {
		got := AnchoredCommand(cmd)
		argv, _ := splitWords(cmd)
		words, err := splitWords(got)
		if err != nil || !slices.Equal(words, Anchored(argv)) || got == cmd {
			t.Errorf("AnchoredCommand(%q) = %q, splitting into %q (%v); want the words %q", cmd, got, words, err, Anchored(argv))
		}
		if !strings.Contains(got, here) {
			t.Errorf("AnchoredCommand(%q) = %q: no absolute path under %s", cmd, got, here)
		}
	}
	for _, cmd := range []string{"npx -y @scope/pkg", "/abs/srv", "'unbalanced"} {
		if got := AnchoredCommand(cmd); got != cmd {
			t.Errorf("AnchoredCommand(%q) = %q, want it as it is", cmd, got)
		}
	}
}
