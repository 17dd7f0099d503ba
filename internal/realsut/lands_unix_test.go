//go:build unix

package realsut

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLandsIsCountedNotJudged: a server that resolves links before its
// check allows a write and a read of a path outside its root that a link
// leads back into it, which SPEC §5 denies for the path asked: a
// verdict-matches-model finding, unless its profile says "lands", when
// neither is judged, and the read after the landed write, whose file is
// not the model's, is answered as the model.
func TestLandsIsCountedNotJudged(t *testing.T) {
	const world = "grant fs_read /work/\ngrant fs_write /work/\nfile /work/out/x old\nlink /etc/ln-back /work/out/x\n\n"
	for _, tc := range []struct {
		lands bool
		ops   string
		want  []string
	}{
		{false, "fs_write /etc/ln-back y\n", []string{"verdict-matches-model"}},
		{true, "fs_write /etc/ln-back y\nfs_read /work/out/x\n", nil},
		{false, "fs_read /etc/ln-back\n", []string{"verdict-matches-model"}},
		{true, "fs_read /etc/ln-back\nfs_read /work/out/x\n", nil},
	} {
		lands := ""
		if tc.lands {
			lands = `, "lands": true`
		}
		a := fakeAdapter(t, "plain", "", lands)
		if a.JudgesLanding != tc.lands {
			t.Fatalf("the profile's lands (%v) did not reach the adapter", tc.lands)
		}
		if got := invariants(check(t, a, world+tc.ops)); !slices.Equal(got, tc.want) {
			t.Errorf("lands %v: %q: findings %v, want %v", tc.lands, tc.ops, got, tc.want)
		}
	}
}

// TestWriteUnderALinkMeetsNoParentMadeForIt: a server that checks a path
// whose parent is missing as asked, and then makes the directories it
// writes in, writes out of its root under a link to a directory outside
// (Qodo Command's write_file); the harness makes no parent for a write a
// link leads out of the grant, so the escape is seen. The same write on
// a server that resolves what exists (plain) is refused, and an allowed
// write's parent is still made, for both.
func TestWriteUnderALinkMeetsNoParentMadeForIt(t *testing.T) {
	const world = "grant fs_read /data/\ngrant fs_write /data/\nlink /data/d /etc\nfile /etc/passwd root\n\n"
	for _, tc := range []struct {
		mode, ops string
		want      []string
	}{
		{"mkdirs", "fs_write /data/d/new/x y\n", []string{"confinement", "verdict-matches-model"}},
		{"plain", "fs_write /data/d/new/x y\n", nil},
		{"mkdirs", "fs_write /data/in/new/x y\nfs_read /data/in/new/x\n", nil},
		{"plain", "fs_write /data/in/new/x y\nfs_read /data/in/new/x\n", nil},
	} {
		a := fakeAdapter(t, tc.mode, "", "")
		if got := invariants(check(t, a, world+tc.ops)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q: findings %v, want %v", tc.mode, tc.ops, got, tc.want)
		}
	}
}

// TestNumberedReadsAreCounted: a server that answers a read with the
// file's lines each after a line number (cat -n) is a verdict-matches-model
// finding of the profile's making, counted so that the run says to cut
// the numbers; with the profile's line_prefix, neither.
func TestNumberedReadsAreCounted(t *testing.T) {
	const src = "grant fs_read /work/\ngrant fs_write /work/\nfile /work/a \"one\\ntwo\\n\"\n\nfs_read /work/a\n"
	for _, tc := range []struct {
		result string
		want   []string
		counts int64
	}{
		{"", []string{"verdict-matches-model"}, 1},
		{`, "result": {"line_prefix": " *\\d+\\t"}`, nil, 0},
	} {
		found, tally := checkCounted(t, fakeAdapter(t, "numbered", tc.result, ""), src)
		if got := invariants(found); !slices.Equal(got, tc.want) || tally.Numbered != tc.counts {
			t.Errorf("result %q: findings %v and %d numbered reads, want %v and %d", tc.result, got, tally.Numbered, tc.want, tc.counts)
		}
	}
}

// fakeAdapter is the fake MCP server of mode behind a profile of its
// read_file and write_file tools, with result added to the read tool and
// more to the profile (each "" for none), its trees in the test's own
// directory.
func fakeAdapter(t *testing.T, mode, result, more string) Adapter {
	t.Helper()
	return profiled(t, mode, `{"name": "fake-`+mode+`", "read": {"tool": "read_file", "path": "path"`+result+`},
		"write": {"tool": "write_file", "path": "path", "content": "content"},
		"denied": ["Access denied"], "not_found": ["ENOENT"]`+more+`}`)
}

// profiled is the fake MCP server of mode behind the profile of text,
// its trees in the test's own directory.
func profiled(t *testing.T, mode, text string) Adapter {
	t.Helper()
	profile := filepath.Join(t.TempDir(), "profile.json")
	if err := os.WriteFile(profile, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ProfileEnv, profile)
	a, err := MCP(fakeMCP(t, mode))
	if err != nil {
		t.Fatal(err)
	}
	a.TreeDir = filepath.Join(t.TempDir(), "trees")
	return a
}
