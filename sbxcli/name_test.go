package sbxcli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestStartedAs: a program is named as it can be run again: by go run,
// by its base name when PATH finds that same file, else by its path,
// quoted for a shell.
func TestStartedAs(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "my sbx")
	other := filepath.Join(dir, "other")
	for _, p := range []string{self, other} {
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	finds := func(path string) func(string) (string, error) {
		return func(string) (string, error) { return path, nil }
	}
	notFound := func(string) (string, error) { return "", errors.New("not found") }
	noGoRun := func(string) string { return "" }
	for _, c := range []struct {
		reason   string
		lookPath func(string) (string, error)
		goRun    func(string) string
		want     string
	}{
		{"PATH finds the program", finds(self), noGoRun, "'my sbx'"},
		{"PATH finds another program of that name", finds(other), noGoRun, "'" + self + "'"},
		{"not on PATH", notFound, noGoRun, "'" + self + "'"},
		{"built by go run", finds(self), func(string) string { return "go run example.com/m/cmd/mysbx" }, "go run example.com/m/cmd/mysbx"},
	} {
		if got := startedAs(self, self, c.lookPath, c.goRun); got != c.want {
			t.Errorf("%s: got %q, want %q", c.reason, got, c.want)
		}
	}
}

// TestGoRunPackage: only an executable in go run's exe directory under a
// go-build directory is taken for one go run built.
func TestGoRunPackage(t *testing.T) {
	for _, p := range []string{"/usr/local/bin/mysbx", "/tmp/go-build123/b001/mysbx.test", "/home/u/exe/mysbx"} {
		if got := goRunPackage(p); got != "" {
			t.Errorf("goRunPackage(%q) = %q, want \"\"", p, got)
		}
	}
}

// TestCommandOptionWins: the last non-blank Command option names the
// program.
func TestCommandOptionWins(t *testing.T) {
	if got := invocation([]Option{Command("a"), Command("go run ./cmd/b"), Command("  ")}); got != "go run ./cmd/b" {
		t.Errorf("invocation = %q, want the last non-blank Command", got)
	}
}
