package realsut

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/scenario"
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

// TestTrimmedPathsNotDrawn: for a server that trims paths, ops on a path
// with white space or a quote at an end are left out of the scenario; for
// one that does not, they stay.
func TestTrimmedPathsNotDrawn(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte("grant fs_read /work\ngrant fs_write /work\nfile /work/a x\n\n"+
		"fs_read \"/work\\r\"\nfs_read \"/work/a'\"\nfs_read \"/work/a \"\nfs_read /work/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    mcp.Profile
		want int
	}{{mcp.Filesystem, 1}, {mcp.FastFilesystem, 4}} {
		out := adaptTo(tc.p)(sc)
		if out == nil || len(out.Steps) != tc.want {
			t.Errorf("%s: %v, want %d ops", tc.p.Name, out, tc.want)
		}
	}
	for p, want := range map[string]bool{"/work\r": true, "/work/a\u00a0": true, "\ufeff/w": true, `"/w"`: true, "/w'": true, "/w x/y": false, "/w": false} {
		if mcp.Trimmed(p) != want {
			t.Errorf("Trimmed(%q) = %v, want %v", p, !want, want)
		}
	}
}

// TestProfilePromises: a profile's promises become the adapter's, so that
// a refusal of a promised reason is judged; an unknown reason is a
// profile error, not a promise of nothing; the built-in profiles promise
// nothing, and os.Root everything it can express.
func TestProfilePromises(t *testing.T) {
	dir := t.TempDir()
	write := func(name, promises string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(`{"name": "mine", "read": {"tool": "cat"}, "promises": `+promises+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, err := MCPWith("srv", write("good.json", `["dangling-write", "all"]`))
	if err != nil || !slices.Equal(a.Promises, []string{ReasonDanglingWrite, PromisesAll}) {
		t.Errorf("promises %v %v, want [dangling-write all]", a.Promises, err)
	}
	if _, err := MCPWith("srv", write("bad.json", `["dangling-writes"]`)); !errors.Is(err, mcp.ErrProfile) || !strings.Contains(err.Error(), `"dangling-writes"`) {
		t.Errorf("an unknown reason: %v, want a profile error naming it", err)
	}
	for _, p := range mcp.BuiltinProfiles() {
		if a, err := MCPWith("srv", p.Name); err != nil || len(a.Promises) != 0 {
			t.Errorf("%s promises %v %v, want nothing", p.Name, a.Promises, err)
		}
	}
	if !door.Promised(OSRoot.Promises, ReasonOther) {
		t.Errorf("os.Root promises %v, want all", OSRoot.Promises)
	}
}
