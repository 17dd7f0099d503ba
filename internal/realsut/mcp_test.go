package realsut

import (
	"path/filepath"
	"testing"
)

// TestDocsExampleProfiles: the MCP profiles docs/examples offers to copy
// load, and name the tools and words their servers use.
func TestDocsExampleProfiles(t *testing.T) {
	for file, want := range map[string][2]string{
		"mcp-profile.json":       {"cat", "put"},
		"mark3labs-profile.json": {"read_file", "write_file"},
	} {
		p, err := LoadProfile(filepath.Join("..", "..", "docs", "examples", file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if p.Read.Name != want[0] || p.Write.Name != want[1] {
			t.Errorf("%s: tools %q and %q, want %q and %q", file, p.Read.Name, p.Write.Name, want[0], want[1])
		}
	}
}
