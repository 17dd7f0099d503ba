package realsut

import (
	"testing"

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
