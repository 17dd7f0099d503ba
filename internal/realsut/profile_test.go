package realsut

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
)

// TestLoadProfile: a --profile value is a built-in profile's name, else a
// JSON file; empty is server-filesystem's; a file that does not parse is
// an error naming it.
func TestLoadProfile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	if err := os.WriteFile(file, []byte(`{"name": "mine", "read": {"tool": "cat"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"reed": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want, err string }{
		{"", mcp.Filesystem.Name, ""},
		{"desktop-commander", mcp.DesktopCommander.Name, ""},
		{"fast-filesystem-mcp", mcp.FastFilesystem.Name, ""},
		{file, "mine", ""},
		{bad, "", "profile " + bad + ": bad MCP profile"},
		{filepath.Join(dir, "none.json"), "", "none.json"},
	} {
		p, err := LoadProfile(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || p.Name != tc.want):
			t.Errorf("%q: %q %v, want %q", tc.in, p.Name, err, tc.want)
		}
	}
}
