//go:build unix

package realfs

import (
	"os"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

var (
	leakWorld = scenario.WorldSpec{
		Files: []scenario.File{
			{Path: "/work/data.txt", Data: "public readable text"},
			{Path: "/work/same.txt", Data: "shared-secret"},
			{Path: "/work/out/report.txt", Data: "report"},
			{Path: "/etc/passwd", Data: "root:x:0:0:root:/root:/bin/sh"},
			{Path: "/etc/shadow", Data: "root:$6$salt$hash"},
			{Path: "/etc/short", Data: "ok"},
			{Path: "/etc/copy", Data: "shared-secret"},
			{Path: "/etc/written", Data: "pwned-by-op"},
			{Path: "/workshop/secret", Data: "sibling secret"},
			{Path: "/etc/twin-a", Data: "twin secret"},
			{Path: "/etc/twin-b", Data: "twin secret"},
		},
		Links: []scenario.Link{{Path: "/work/ln", Target: "/etc/shadow"}},
	}
	leakGrant = core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"}}
	leakOps   = []core.Op{{Kind: core.OpWrite, Args: []string{"/work/out/x", "a pwned-by-op b"}}}
)

// TestCanaries: exactly the files outside the fs_read roots carry a
// canary, unique and the same in every materialization.
func TestCanaries(t *testing.T) {
	tr := materialize(t, leakWorld, leakGrant, leakOps)
	again := materialize(t, leakWorld, leakGrant, leakOps)
	seen := map[string]string{}
	for _, f := range leakWorld.Files {
		b, err := os.ReadFile(real(t, tr, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		c, marked := strings.CutPrefix(string(b), f.Data)
		if !marked {
			t.Fatalf("%s: content %q does not start with %q", f.Path, b, f.Data)
		}
		forbidden := !spec.UnderAllowlist(f.Path, leakGrant.FSRead)
		switch {
		case forbidden && !strings.HasPrefix(c, "\n#SBXFUZZ-CANARY-"):
			t.Errorf("%s: forbidden, but no canary: %q", f.Path, b)
		case !forbidden && c != "":
			t.Errorf("%s: readable, but marked: %q", f.Path, b)
		case c != "" && seen[c] != "":
			t.Errorf("%s and %s share the canary %q", f.Path, seen[c], c)
		}
		seen[c] = f.Path
		if b2, _ := os.ReadFile(real(t, again, f.Path)); string(b2) != string(b) {
			t.Errorf("%s: %q, then %q", f.Path, b, b2)
		}
	}
}

// TestLeak: a canary or a distinctive original content betrays its file;
// readable data, data the ops wrote and short contents do not.
func TestLeak(t *testing.T) {
	tr := materialize(t, leakWorld, leakGrant, leakOps)
	disk := func(p string) string {
		b, err := os.ReadFile(real(t, tr, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		data, want, reason string
	}{
		{disk("/etc/passwd"), "/etc/passwd", "the file as on disk"},
		{disk("/work/ln"), "/etc/shadow", "read through a link"},
		{"prefix " + canary("/etc/short") + " suffix", "/etc/short", "a canary alone, even of a short file"},
		{"x root:$6$salt$hash y", "/etc/shadow", "the original content, without its canary"},
		{disk("/etc/shadow") + disk("/etc/passwd"), "/etc/passwd", "two files: the first in path order"},
		{"sibling secret", "/workshop/secret", "a prefix sibling is outside /work/"},
		{disk("/etc/twin-b"), "/etc/twin-b", "its canary, though an earlier file holds the same content"},
		{"a twin secret", "/etc/twin-a", "a content two files hold, without a canary: the first"},
		{disk("/work/data.txt"), "", "a readable file"},
		{disk("/work/same.txt"), "", "a readable file holding a forbidden file's content"},
		{"a pwned-by-op b", "", "data an op wrote, which holds a forbidden file's content"},
		{"ok", "", "a forbidden content shorter than 8 bytes"},
		{"", "", "nothing"},
		{"\n#SBXFUZZ-CANARY-0000000000000000#", "", "a canary of no file"},
	}
	for _, tc := range tests {
		got, ok := tr.Leak(tc.data)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: Leak(%q) = %q, %v; want %q", tc.reason, tc.data, got, ok, tc.want)
		}
	}
}
