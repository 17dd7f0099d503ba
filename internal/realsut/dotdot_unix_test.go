//go:build unix

package realsut

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// dotdotWorld has a directory link out of the one root, and a directory
// inside it for a ".." that stays in.
const dotdotWorld = `grant fs_read /work/
grant fs_write /work/
file /work/sub/f x
file /etc/secret "top secret"
link /work/d /etc
`

// TestDotDotJudgedByEffects: with its profile's "dotdot", an MCP server is
// sent paths with "..", its answer to them not judged by itself: one that
// checks the clean path and opens the raw one writes and reads through a
// link's parent (confinement, in words that give what it answered), one
// that resolves the path before its check has no finding, and a write the
// clean path allows is no effect on a denial, though the model's answer
// to the op stands.
func TestDotDotJudgedByEffects(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "profile.json")
	err := os.WriteFile(profile, []byte(`{"name": "fake-dotdot", "read": {"tool": "read_file", "path": "path"},
		"write": {"tool": "write_file", "path": "path", "content": "content"},
		"denied": ["Access denied"], "not_found": ["ENOENT"], "dotdot": true}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ProfileEnv, profile)
	for _, tc := range []struct{ mode, op, want, says string }{
		{"cleancheck", "fs_write /work/d/../x y", "confinement", "returned ok"},
		{"cleancheck", "fs_read /work/d/../etc/secret", "confinement", "returned ok with 44 bytes"},
		{"cleancheck", "fs_write /work/sub/../b.txt v", "", ""},
		{"plain", "fs_write /work/d/../x y", "", ""},
		{"plain", "fs_read /work/d/../etc/secret", "", ""},
		{"plain", "fs_write /work/sub/../b.txt v", "", ""},
	} {
		a, err := MCP(fakeMCP(t, tc.mode))
		if err != nil {
			t.Fatal(err)
		}
		if !a.CleansDots {
			t.Fatal("the profile's dotdot did not reach the adapter")
		}
		a.TreeDir = filepath.Join(t.TempDir(), "trees")
		fs := check(t, a, dotdotWorld+tc.op+"\n")
		got := invariants(fs)
		switch i := slices.Index(got, tc.want); {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: %s: findings %v, want none", tc.mode, tc.op, got)
		case tc.want != "" && i < 0:
			t.Errorf("%s: %s: findings %v, want %s among them", tc.mode, tc.op, got, tc.want)
		case tc.want != "" && !strings.Contains(fs[i].Detail, tc.says):
			t.Errorf("%s: %s: %s finding %q does not say %q", tc.mode, tc.op, tc.want, fs[i].Detail, tc.says)
		}
	}
}

// TestAdaptDotDot: without "dotdot" an MCP server is never sent a path
// with ".."; with it, a scenario keeps its ops up to the first such path
// and ends there. Either way a read whose ".." lies between backslashes
// is sent, and the scenario goes on after it (backslashRead); a write
// with a backslash is never sent.
func TestAdaptDotDot(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte(dotdotWorld+"fs_read /work/sub/f\nfs_read /work/..\\x\nfs_write /work/a\\b z\nfs_read /work/d/../x\nfs_read /work/sub/../sub/f\nfs_write /work/y z\n"))
	if err != nil {
		t.Fatal(err)
	}
	ops := func(sc *scenario.Scenario) []string {
		var out []string
		for _, st := range sc.Steps {
			out = append(out, st.Op.Args[0])
		}
		return out
	}
	if got, want := ops(adaptOneList(sc.Clone(), false)), []string{"/work/sub/f", `/work/..\x`, "/work/y"}; !slices.Equal(got, want) {
		t.Errorf("without dotdot: %v, want %v", got, want)
	}
	if got, want := ops(adaptOneList(sc.Clone(), true)), []string{"/work/sub/f", `/work/..\x`, "/work/d/../x"}; !slices.Equal(got, want) {
		t.Errorf("with dotdot: %v, want %v", got, want)
	}
}

// TestAdaptTrims: a server that trims paths (server-filesystem's profile)
// is sent an op on a path with white space or a quote at an end, and the
// scenario ends there; it used to be left out, so a server that checks
// the path as asked and trims it after was never asked one.
func TestAdaptTrims(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte(dotdotWorld+"fs_read /work/sub/f\nfs_read \"/work/sub/f \"\nfs_write /work/y z\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := adaptTo(mcp.Filesystem)(sc.Clone())
	if out == nil {
		t.Fatal("adaptTo(server-filesystem) keeps nothing")
	}
	var got []string
	for _, st := range out.Steps {
		got = append(got, st.Op.Args[0])
	}
	if want := []string{"/work/sub/f", "/work/sub/f "}; !slices.Equal(got, want) {
		t.Errorf("with trims: %q, want %q", got, want)
	}
}
