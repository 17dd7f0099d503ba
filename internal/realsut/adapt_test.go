package realsut

import (
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestAdaptLeavesOutLinkedRoots: a scenario whose grant root is a link, or
// lies under one, or resolves through a loop, is left out by AdaptFS and
// AdaptOneList (a real sandbox follows its root's own link by design);
// the same scenario with its links below the root, or with a link beside
// it, is kept.
func TestAdaptLeavesOutLinkedRoots(t *testing.T) {
	const ops = "file /mnt/real/srv/app/a real\nfile /srv/app/a shadowed\nfs_read /srv/app/a\n"
	for _, tc := range []struct {
		what  string
		links string
		keep  bool
	}{
		{"no link", "", true},
		{"a link below the root", "link /srv/app/ln /etc/passwd\n", true},
		{"a link beside the root", "link /srv/other /mnt\n", true},
		{"the root a link", "link /srv/app /mnt/real/srv/app\n", false},
		{"the root's parent a link", "link /srv /mnt/real/srv\n", false},
		{"the root a relative link", "link /srv/app ../real/app\n", false},
		{"the root in a loop", "link /srv /loop\nlink /loop /srv\n", false},
	} {
		for _, roots := range []string{"grant fs_read /srv/app/\ngrant fs_write /srv/app/\n", "grant fs_read /srv/app\ngrant fs_write /srv/app/out\n"} {
			sc, err := scenario.Parse("t.sbx", []byte(roots+tc.links+ops))
			if err != nil {
				t.Fatalf("%s: %v", tc.what, err)
			}
			if got := AdaptFS(sc) != nil; got != tc.keep {
				t.Errorf("%s, %q: AdaptFS kept it %v, want %v", tc.what, roots, got, tc.keep)
			}
			if got := AdaptOneList(sc) != nil; got != tc.keep {
				t.Errorf("%s, %q: AdaptOneList kept it %v, want %v", tc.what, roots, got, tc.keep)
			}
		}
	}
	// A write root alone under a link is enough.
	sc, err := scenario.Parse("t.sbx", []byte("grant fs_read /srv/app\ngrant fs_write /data/out\nlink /data /mnt/data\nfs_read /srv/app/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if AdaptFS(sc) != nil {
		t.Error("AdaptFS kept a scenario whose write root lies under a link")
	}
}

// TestWhyNotFS: a scenario AdaptFS keeps nothing of says why, by the
// first condition it fails; one it keeps says nothing.
func TestWhyNotFS(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"grant fs_read /work\nfile /work/a x\nfs_read /work/a\n", ""},
		// A file at a root's own key, or at "/", beside files below it,
		// is left out of the world, not the scenario with it.
		{"grant fs_read /work\nfile /work x\nfile /work/a x\nfs_read /work/a\n", ""},
		{"grant fs_read /\nfile / x\nfile /work/a x\nfs_read /work/a\n", ""},
		{"grant fs_read /work\nlink /work/a/l /etc\nfile /work/a/l/x y\nfs_read /work/a/l\n", `world cannot be a real tree: "/work/a/l/x" is under the link "/work/a/l"`},
		{"grant fs_read /srv/app\nlink /srv /mnt/srv\nfs_read /srv/app/a\n", "a grant root is a link or lies under one"},
		{"grant fs_read /work\nfs_read work/a\nnet_fetch a.test /\n", "no op is an fs_read or fs_write of an absolute path"},
		{"grant fs_read /work\ngrant fs_write /work\nfs_write /work x\n", "a disk holds none of its ops as the flat world does"},
	} {
		sc, err := scenario.Parse("t.sbx", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		got := WhyNotFS(sc)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%q: WhyNotFS = %q, want %q", tc.src, got, tc.want)
		}
		if (got == "") != (AdaptFS(sc) != nil) {
			t.Errorf("%q: WhyNotFS %q, but AdaptFS kept it %v", tc.src, got, AdaptFS(sc) != nil)
		}
	}
}

// TestAdaptDropsOpsWithoutATool: a server whose profile has a write tool
// and no read tool (edit tools that return no file's content) is asked
// no fs_read, a scenario of reads alone is left out, a grant of fs_write
// alone is its one list of directories, and the target says which ops it
// never asks; a profile with both asks both, saying nothing.
func TestAdaptDropsOpsWithoutATool(t *testing.T) {
	writeOnly, err := mcp.ParseProfile([]byte(`{"name": "edits", "write": {"tool": "edit_file", "path": "path", "content": "code"}}`))
	if err != nil {
		t.Fatal(err)
	}
	a := mcpAdapter("edits", []string{"edits"}, writeOnly)
	sc, err := scenario.Parse("t.sbx", []byte("grant fs_read /data\ngrant fs_write /data\nfile /data/a x\n\nfs_read /data/a\nfs_write /data/b y\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := a.Adapt(sc)
	if out == nil || len(out.Steps) != 1 || out.Steps[0].Op.Kind != core.OpWrite {
		t.Errorf("adapted %v, want the write alone", out)
	}
	reads, err := scenario.Parse("t.sbx", []byte("grant fs_read /data\nfile /data/a x\n\nfs_read /data/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Adapt(reads) != nil {
		t.Errorf("a scenario of reads alone was kept")
	}
	writes, err := scenario.Parse("t.sbx", []byte("grant fs_write /data\n\nfs_write /data/b y\n"))
	if err != nil {
		t.Fatal(err)
	}
	if out := a.Adapt(writes); out == nil || !slices.Equal(out.Grant.FSRead, []string{"/data"}) || !slices.Equal(out.Grant.FSWrite, []string{"/data"}) {
		t.Errorf("a grant of fs_write alone: adapted %v, want the write under the one list /data", out)
	}
	if got := a.Target().Unasked; !strings.Contains(got, "fs_read never asked: profile edits has no tool for it") {
		t.Errorf("Unasked = %q, want fs_read named", got)
	}
	if got := mcpAdapter("fs", []string{"fs"}, mcp.Profile{}).Target().Unasked; got != "" {
		t.Errorf("the default profile: Unasked = %q, want none", got)
	}
}

// TestAdaptLeavesOutRootsThatHoldTheSeparator: a server given its
// directories joined in one argument is never given a root that holds
// the separator, which it would read as two (Deno's --allow-read=/da,ta
// allows /da): such a scenario is left out, another kept.
func TestAdaptLeavesOutRootsThatHoldTheSeparator(t *testing.T) {
	p, err := mcp.ParseProfile([]byte(`{"name": "deno", "read": {"tool": "read_file"}, "write": {"tool": "write_file"}, "dirs_args": ["--allow-read={{dirs}}"]}`))
	if err != nil {
		t.Fatal(err)
	}
	a := mcpAdapter("deno", []string{"server.ts"}, p)
	for _, tc := range []struct {
		root string
		keep bool
	}{{"/data", true}, {"/da,ta", false}} {
		sc, err := scenario.Parse("t.sbx", []byte("grant fs_read "+tc.root+"\ngrant fs_write "+tc.root+"\n\nfs_read "+tc.root+"/a\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Adapt(sc) != nil; got != tc.keep {
			t.Errorf("root %s: kept %v, want %v", tc.root, got, tc.keep)
		}
	}
}

// TestAdaptLeavesOutOwnNames: for a server whose profile names entries it
// keeps for itself (own_names), the world's files and links and the ops
// whose paths pass through one are left out; the rest is kept. A name
// that is no entry's is a profile error.
func TestAdaptLeavesOutOwnNames(t *testing.T) {
	p, err := mcp.ParseProfile([]byte(`{"name": "own", "read": {"tool": "read_file"}, "write": {"tool": "write_file"}, "own_names": [".own"]}`))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("t.sbx", []byte("grant fs_read /srv/app/\nfile /srv/app/.own/state s\nfile /srv/app/a a\nlink /srv/app/.own/ln /etc\nlink /srv/app/l .own\n\nfs_read /srv/app/.own/state\nfs_write /srv/app//.own/x y\nfs_write /srv/app/l/x y\nfs_read /srv/app/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := adaptTo(p)(sc)
	if out == nil {
		t.Fatal("the scenario was left out whole")
	}
	// The link into .own goes, so /srv/app/l/x is a plain new file.
	if len(out.World.Files) != 1 || len(out.World.Links) != 0 || len(out.Steps) != 2 || out.Steps[0].Op.Args[0] != "/srv/app/l/x" || out.Steps[1].Op.Args[0] != "/srv/app/a" {
		t.Errorf("adapted: files %v, links %v, steps %v; want /srv/app/a's file, and the write through no link and the read", out.World.Files, out.World.Links, out.Steps)
	}
	for _, bad := range []string{`""`, `"a/b"`, `".."`} {
		if _, err := mcp.ParseProfile([]byte(`{"name": "own", "read": {"tool": "read_file"}, "own_names": [` + bad + `]}`)); err == nil || !strings.Contains(err.Error(), "own_names") {
			t.Errorf("own_names [%s]: %v, want a profile error naming own_names", bad, err)
		}
	}
}
