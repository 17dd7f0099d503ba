//go:build unix

package realfs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestExpressible: the worlds a disk cannot hold are refused, each for its
// reason, before anything is made; the rest are built.
func TestExpressible(t *testing.T) {
	files := func(ps ...string) []scenario.File {
		var fs []scenario.File
		for _, p := range ps {
			fs = append(fs, scenario.File{Path: p, Data: "x"})
		}
		return fs
	}
	up := func(n int) string { return "/" + strings.Repeat("../", n) + "x" }
	read := func(p string) []core.Op { return []core.Op{{Kind: core.OpRead, Args: []string{p}}} }
	var manyLinks []scenario.Link
	for i := range 21 {
		manyLinks = append(manyLinks, scenario.Link{Path: "/l" + strings.Repeat("x", i), Target: "../../../y"})
	}
	tests := []struct {
		reason string
		ws     scenario.WorldSpec
		g      core.GrantSpec
		ops    []core.Op
		ok     bool
	}{
		{reason: "an empty world", ok: true},
		{reason: "a file and the parent of a file", ws: scenario.WorldSpec{Files: files("/a", "/a/b")}},
		{reason: "the same, spelled uncleanly", ws: scenario.WorldSpec{Files: files("/a/", "/a/./b")}},
		{reason: "a file and the parent of a link",
			ws: scenario.WorldSpec{Files: files("/a"), Links: []scenario.Link{{Path: "/a/l", Target: "/b"}}}},
		{reason: "a file and a link at one path",
			ws: scenario.WorldSpec{Files: files("/a"), Links: []scenario.Link{{Path: "//a", Target: "/b"}}}},
		{reason: "a link under a link",
			ws: scenario.WorldSpec{Links: []scenario.Link{{Path: "/a", Target: "/b"}, {Path: "/a/l", Target: "/c"}}}},
		{reason: "a file under a link",
			ws: scenario.WorldSpec{Files: files("/a/f"), Links: []scenario.Link{{Path: "/a", Target: "/b"}}}},
		{reason: "a file at /", ws: scenario.WorldSpec{Files: files("/")}},
		{reason: "a relative file path", ws: scenario.WorldSpec{Files: files("work/a")}},
		{reason: "a relative link path", ws: scenario.WorldSpec{Links: []scenario.Link{{Path: "l", Target: "/b"}}}},
		{reason: "a NUL in a file path", ws: scenario.WorldSpec{Files: files("/a\x00b")}},
		{reason: "a NUL in a link target", ws: scenario.WorldSpec{Links: []scenario.Link{{Path: "/l", Target: "a\x00"}}}},
		{reason: "a name past NAME_MAX", ws: scenario.WorldSpec{Files: files("/" + strings.Repeat("n", 256))}},
		{reason: "a name at NAME_MAX", ws: scenario.WorldSpec{Files: files("/" + strings.Repeat("n", 255))}, ok: true},
		{reason: "an op climbing 63 levels: a moat of 64", ops: read(up(63)), ok: true},
		{reason: "an op climbing 64 levels", ops: read(up(64))},
		{reason: "21 links climbing 3 each: 63 in all, a moat of 64",
			ws: scenario.WorldSpec{Links: manyLinks[:21]}, ok: true},
		{reason: "links and an op whose climbs add up past 63",
			ws: scenario.WorldSpec{Links: manyLinks[:21]}, ops: read("/..")},
		{reason: "a link with no target and a link at / are no links",
			ws: scenario.WorldSpec{Files: files("/a"), Links: []scenario.Link{{Path: "/a", Target: ""}, {Path: "/", Target: "/x"}}}, ok: true},
		{reason: "a root and an op parent taken by a file are skipped",
			ws: scenario.WorldSpec{Files: files("/work")}, g: core.GrantSpec{FSRead: []string{"/work/sub"}, FSWrite: []string{"/work"}},
			ops: read("/work/x/y"), ok: true},
		{reason: "ops that are malformed or hostile are skipped",
			ops: []core.Op{{Kind: core.OpRead, Args: []string{"/a\x00/b"}}, {Kind: core.OpRead, Args: []string{"/" + strings.Repeat("n", 300) + "/x"}},
				{Kind: core.OpWrite, Args: []string{"/a/\xff/b", "d"}}, {Kind: "fs_delete", Args: []string{"/q/r"}}}, ok: true},
	}
	for _, tc := range tests {
		err := Expressible(tc.ws, tc.g, tc.ops)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrInexpressible) {
			t.Errorf("%s: Expressible: %v", tc.reason, err)
		}
		dir := filepath.Join(t.TempDir(), "base")
		tr, merr := Materialize(dir, tc.ws, tc.g, tc.ops)
		if (err == nil) != (merr == nil) {
			t.Errorf("%s: Expressible says %v, Materialize %v", tc.reason, err, merr)
		}
		if tr == nil {
			if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: refused, but made %s: %v", tc.reason, dir, err)
			}
		}
	}
}

// TestHolds: a disk refuses what the flat world allows — a write to a
// directory of the tree (a root, a file's parent), under a file, or where
// a link leads to one — and places no relative path.
func TestHolds(t *testing.T) {
	ws := scenario.WorldSpec{
		Files: []scenario.File{{Path: "/work/a.txt", Data: "a"}, {Path: "/work/sub/b.txt", Data: "b"}},
		Links: []scenario.Link{{Path: "/work/to-sub", Target: "/work/sub"}, {Path: "/work/ok", Target: "new.txt"}},
	}
	g := core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/out"}}
	for _, tc := range []struct {
		op   core.Op
		want bool
	}{
		{core.Op{Kind: core.OpWrite, Args: []string{"/work/new.txt", "x"}}, true},
		{core.Op{Kind: core.OpWrite, Args: []string{"/work/ok", "x"}}, true},
		{core.Op{Kind: core.OpRead, Args: []string{"/work/out"}}, true},
		{core.Op{Kind: core.OpWrite, Args: []string{"/work/out/", "x"}}, false},
		{core.Op{Kind: core.OpWrite, Args: []string{"/./", "x"}}, false},
		{core.Op{Kind: core.OpWrite, Args: []string{"/work/sub", "x"}}, false},
		{core.Op{Kind: core.OpWrite, Args: []string{"/work/to-sub", "x"}}, false},
		{core.Op{Kind: core.OpWrite, Args: []string{"/work/a.txt/x", "x"}}, false},
		{core.Op{Kind: core.OpRead, Args: []string{"work/a.txt"}}, false},
	} {
		if got := Holds(ws, g, []core.Op{tc.op})[0]; got != tc.want {
			t.Errorf("Holds(%v) = %v, want %v", tc.op, got, tc.want)
		}
	}
}

// TestHoldsAcrossWrites: a write through a dangling link makes its
// target's directory, so a write to that directory is refused by a disk;
// a write makes a file, so a write below it is refused too, whichever
// comes first; a write a disk refuses anyway makes nothing.
func TestHoldsAcrossWrites(t *testing.T) {
	ws := scenario.WorldSpec{Links: []scenario.Link{{Path: "/work/out/d-sib", Target: "/work/out2"}}}
	g := core.GrantSpec{FSRead: []string{"/work"}, FSWrite: []string{"/work"}}
	w := func(p string) core.Op { return core.Op{Kind: core.OpWrite, Args: []string{p, ""}} }
	for _, tc := range []struct {
		ops  []core.Op
		want []bool
	}{
		{[]core.Op{w("/work/out/d-sib/n"), w("/work/out2")}, []bool{false, false}},
		{[]core.Op{w("/work/out2"), w("/work/out/d-sib/n")}, []bool{false, false}},
		{[]core.Op{w("/work/f"), w("/work/f/g")}, []bool{false, true}}, // /work/f is made a directory
		{[]core.Op{w("/work/out"), w("/work/out/r.txt")}, []bool{false, true}},
		{[]core.Op{w("/work/out/d-sib/n"), w("/work/out2/m")}, []bool{true, true}},
		{[]core.Op{w("/work/f"), {Kind: core.OpRead, Args: []string{"/work/f"}}}, []bool{true, true}},
	} {
		if got := Holds(ws, g, tc.ops); !slices.Equal(got, tc.want) {
			t.Errorf("Holds(%v) = %v, want %v", tc.ops, got, tc.want)
		}
	}
}

// TestMoatCountsBackslashes: a sandbox may turn "\" into "/" before it
// opens a path, so the moat under T is as deep as a path climbs either
// way; one read "/" alone would let such a sandbox climb out onto the
// machine.
func TestMoatCountsBackslashes(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want int
	}{
		{"/w/../x", 2},
		{`/w/..\..\..\x`, 4},
		{`/w/..\../..\x`, 4},
		{`/w/a..\b`, 1},
	} {
		got, err := moatDepth(nil, []core.Op{{Kind: core.OpRead, Args: []string{tc.arg}}})
		if err != nil || got != tc.want {
			t.Errorf("moatDepth of a read of %s = %d, %v; want %d", tc.arg, got, err, tc.want)
		}
	}
}
