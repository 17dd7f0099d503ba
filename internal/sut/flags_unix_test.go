//go:build unix

package sut

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
)

// TestProfileFlags: the mcp: door's Target carries the flags that choose
// its profile again in a replay, however it was chosen (--profile or
// $SBXFUZZ_MCP_PROFILE): none for the default, a built-in by its name, a
// file by its absolute path; other doors carry none.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	if err := os.WriteFile(file, []byte(`{"name": "p", "read": {"tool": "cat"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	const door = "mcp:sh server.js"
	for _, tc := range []struct {
		name, profile, env string
		want               []string
	}{
		{door, "", "", nil},
		{door, "server-filesystem", "", nil},
		{door, "fast-filesystem-mcp", "", []string{"--profile", "fast-filesystem-mcp"}},
		{door, "", "desktop-commander", []string{"--profile", "desktop-commander"}},
		{door, "p.json", "", []string{"--profile", file}},
		{door, "", "p.json", []string{"--profile", file}},
		{"osroot", "fast-filesystem-mcp", "", nil},
		{"exec:sh sandbox.sh", "fast-filesystem-mcp", "", nil},
	} {
		t.Setenv(realsut.ProfileEnv, tc.env)
		target, err := LookupWith(tc.name, Options{Profile: tc.profile})
		if err != nil {
			t.Fatalf("%s, profile %q, $%s %q: %v", tc.name, tc.profile, realsut.ProfileEnv, tc.env, err)
		}
		if !slices.Equal(target.Flags, tc.want) {
			t.Errorf("%s, profile %q, $%s %q: Flags %q, want %q", tc.name, tc.profile, realsut.ProfileEnv, tc.env, target.Flags, tc.want)
		}
	}
}
