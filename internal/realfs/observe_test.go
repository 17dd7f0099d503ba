//go:build unix

package realfs

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func observeT(t *testing.T, tr *Tree) Observation {
	t.Helper()
	o, err := tr.Observe()
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestChanges: what a sandbox does to T or the moat is a Change, with the
// path confinement judges.
func TestChanges(t *testing.T) {
	tr := materialize(t, layoutWorld, layoutGrant, layoutOps)
	before := observeT(t, tr)
	if c := tr.Changes(before, observeT(t, tr)); len(c) != 0 {
		t.Fatalf("changes with nothing done: %v", c)
	}
	must(t, os.WriteFile(real(t, tr, "/work/a.txt"), []byte("new"), 0o644))      // a write inside T
	must(t, os.WriteFile(real(t, tr, "/../x"), []byte("out"), 0o644))            // a write in the moat
	must(t, os.Symlink("/etc", real(t, tr, "/work/out/l")))                      // a new link
	must(t, os.Remove(real(t, tr, "/work/sub/b.txt")))                           // a removed file
	must(t, os.Chmod(real(t, tr, "/etc/passwd"), 0o666))                         // a chmod
	must(t, os.Remove(real(t, tr, "/work/ln-in")))                               // a link …
	must(t, os.Mkdir(real(t, tr, "/work/ln-in"), 0o755))                         // … become a directory
	must(t, syscall.Mkfifo(real(t, tr, "/work/out/fifo"), 0o644))                // a pipe: not waited on
	must(t, os.WriteFile(real(t, tr, "/work/d/new"), []byte("via link"), 0o644)) // through a link to /etc
	want := []Change{
		{Path: "/../x", Kind: Created, Data: "out"},
		{Path: "/etc/new", Kind: Created, Data: "via link"},
		{Path: "/etc/passwd", Kind: Modified, Data: "root:x:0:0" + canary("/etc/passwd")},
		{Path: "/work/a.txt", Kind: Modified, Data: "new"},
		{Path: "/work/ln-in", Kind: Retyped, Dir: true, Link: true}, // it was a link
		{Path: "/work/out/fifo", Kind: Created},
		{Path: "/work/out/l", Kind: Created, Target: "/etc", Link: true},
		{Path: "/work/sub/b.txt", Kind: Removed},
	}
	if diff := cmp.Diff(want, tr.Changes(before, observeT(t, tr))); diff != "" {
		t.Errorf("Changes (-want +got):\n%s", diff)
	}
}

// TestClimbLandsInMoat: a relative link that climbs out of T, followed by
// a write, creates its file in the moat, where Changes sees it with a
// "/.." path; so does a chain of links whose climbs add up, which a moat
// as deep as the largest single climb would not hold.
func TestClimbLandsInMoat(t *testing.T) {
	tests := []struct {
		links      []scenario.Link
		write      string // world path written through
		want       string // the Change's path
		wantInMoat string // where it lands, below base
	}{
		{[]scenario.Link{{Path: "/work/up", Target: "../../esc"}}, "/work/up",
			"/../esc", "m/m/m/esc"},
		{[]scenario.Link{{Path: "/work/a/up", Target: "../../../../../esc"}}, "/work/a/up",
			"/../../../esc", "m/m/m/m/esc"},
		{[]scenario.Link{{Path: "/l1", Target: "l2/../../.."}, {Path: "/l2", Target: "../.."}}, "/l1/../../../esc",
			strings.Repeat("/..", 8) + "/esc", "m/m/esc"},
	}
	for _, tc := range tests {
		ws := scenario.WorldSpec{Links: tc.links}
		ops := []core.Op{{Kind: core.OpWrite, Args: []string{tc.write, "x"}}}
		tr := materialize(t, ws, core.GrantSpec{}, ops)
		before := observeT(t, tr)
		must(t, os.WriteFile(real(t, tr, tc.write), []byte("x"), 0o644))
		want := []Change{{Path: tc.want, Kind: Created, Data: "x"}}
		if diff := cmp.Diff(want, tr.Changes(before, observeT(t, tr))); diff != "" {
			t.Errorf("%v: Changes (-want +got):\n%s", tc.links, diff)
		}
		if _, err := os.Lstat(filepath.Join(tr.base, tc.wantInMoat)); err != nil {
			t.Errorf("%v: %v", tc.links, err)
		}
	}
}

// TestMaterializeTwice: building the same scenario again into the same
// directory, after a sandbox has been at it, or into another, gives the
// same Observation.
func TestMaterializeTwice(t *testing.T) {
	dir := newBase(t)
	tr, err := Materialize(dir, leakWorld, leakGrant, leakOps)
	must(t, err)
	first := observeT(t, tr)
	must(t, os.WriteFile(real(t, tr, "/../../stray"), []byte("x"), 0o644))
	must(t, os.Chmod(real(t, tr, "/work"), 0o500))
	must(t, os.Chmod(tr.base, 0o700))
	tr, err = Materialize(dir, leakWorld, leakGrant, leakOps)
	must(t, err)
	if diff := cmp.Diff(first, observeT(t, tr)); diff != "" {
		t.Errorf("the same dir again (-first +second):\n%s", diff)
	}
	other := materialize(t, leakWorld, leakGrant, leakOps)
	if diff := cmp.Diff(first, observeT(t, other)); diff != "" {
		t.Errorf("another dir (-first +other):\n%s", diff)
	}
}

// TestObserveEmbeddedTree: a sandbox that makes, in the tree, the
// directories of T's own real path (go-billy's BoundOS re-rooting a link's
// absolute target) is observed alike whatever directory the tree was
// built in, "/<T>" in the place of that path: a check's run and its
// replay are built in two slots of one run directory.
func TestObserveEmbeddedTree(t *testing.T) {
	var seen []Observation
	run := newBase(t)
	for _, dir := range []string{run + "/0", run + "/1", run + "/10"} {
		tr, err := Materialize(dir, leakWorld, leakGrant, leakOps)
		must(t, err)
		must(t, os.MkdirAll(tr.Root()+"/work"+tr.Root()+"/etc", 0o755))
		must(t, os.WriteFile(tr.Root()+"/work"+tr.Root()+"/etc/passwd", []byte("x"), 0o644))
		must(t, os.Symlink("a"+tr.Root()+"/x", tr.Root()+"/work/embedding-link"))
		seen = append(seen, observeT(t, tr))
		if _, ok := seen[len(seen)-1].Find("/work/<T>/etc/passwd"); !ok {
			t.Errorf("in %s: no entry /work/<T>/etc/passwd in %v", dir, seen[len(seen)-1].Entries)
		}
	}
	for _, o := range seen[1:] {
		if diff := cmp.Diff(seen[0], o); diff != "" {
			t.Errorf("T's path in a name, two directories (-first +other):\n%s", diff)
		}
	}
}

// TestReplacePath: a directory is replaced where it is a whole path in a
// name below its start, not where it begins a longer name (slot 1 and
// slot 10), nor at the start, where a grant root may hold it.
func TestReplacePath(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"/work/r/1", "/work/<T>"},
		{"/r/1/x", "/r/1/x"},
		{"/r/1/x/r/1", "/r/1/x/<T>"},
		{"/work/r/1/x/r/1", "/work/<T>/x/<T>"},
		{"/work/r/10/x", "/work/r/10/x"},
		{"/work/r/1x/r/1/y", "/work/r/1x/<T>/y"},
		{"/work", "/work"},
	} {
		if got := replacePath(tc.p, "/r/1", "/<T>"); got != tc.want {
			t.Errorf("replacePath(%q) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestObserveMoat: the base and every level of the moat are observed, with
// paths that climb from T.
func TestObserveMoat(t *testing.T) {
	tr := materialize(t, scenario.WorldSpec{Files: []scenario.File{{Path: "/f", Data: "x"}}}, core.GrantSpec{}, nil)
	var got []string
	for _, e := range observeT(t, tr).Entries {
		got = append(got, e.Path)
	}
	want := []string{"/", "/..", "/../..", "/f"} // D = 1: base/m/t
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// TestObserveLargeFile: a file past MaxInline is known by its head, size
// and hash, and a change past the head is still a change.
func TestObserveLargeFile(t *testing.T) {
	big := strings.Repeat("a", MaxInline+10)
	tr := materialize(t, scenario.WorldSpec{Files: []scenario.File{{Path: "/work/big", Data: big}}},
		core.GrantSpec{FSRead: []string{"/work"}}, nil)
	before := observeT(t, tr)
	must(t, os.WriteFile(real(t, tr, "/work/big"), []byte(big[:MaxInline+9]+"b"), 0o644))
	after := observeT(t, tr)
	e := after.Entries[len(after.Entries)-1]
	if e.Path != "/work/big" || e.Size != int64(len(big)) || len(e.Data) != MaxInline || e.Sum == [32]byte{} {
		t.Errorf("entry: %s size %d, %d bytes kept, sum %x", e.Path, e.Size, len(e.Data), e.Sum)
	}
	if c := tr.Changes(before, after); len(c) != 1 || c[0].Kind != Modified {
		t.Errorf("Changes: %v", c)
	}
}

// TestObserveHugeFile: a file far past MaxHashed, sparse, costs an
// observation only its first MaxHashed bytes, which its sum is of: its
// size is Lstat's, and a change of its length is a change.
func TestObserveHugeFile(t *testing.T) {
	tr := materialize(t, scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}},
		core.GrantSpec{FSRead: []string{"/work"}}, nil)
	before := observeT(t, tr)
	const huge = 4 << 30 // sparse: no disk need hold it
	if err := os.Truncate(real(t, tr, "/work/a"), huge); err != nil {
		t.Skipf("no sparse file of %d bytes here: %v", int64(huge), err)
	}
	done := make(chan Observation)
	go func() { done <- observeT(t, tr) }()
	var after Observation
	select {
	case after = <-done:
	case <-time.After(time.Minute):
		t.Fatal("observing a sparse file of 4 GiB has not ended after a minute")
	}
	head := make([]byte, MaxHashed)
	head[0] = 'x'
	if e, _ := after.Find("/work/a"); e.Size != huge || e.Sum != sha256.Sum256(head) {
		t.Errorf("entry: size %d, sum %x; want %d and the sum of its first %d bytes", e.Size, e.Sum, int64(huge), MaxHashed)
	}
	if c := tr.Changes(before, after); len(c) != 1 || c[0].Kind != Modified {
		t.Errorf("Changes: %v", c)
	}
}

// TestFindAndHolds: an Observation finds an entry by its world path; an
// entry holds data when it is a regular file of those bytes, a file past
// MaxInline judged by its size and hash, not its kept prefix.
func TestFindAndHolds(t *testing.T) {
	long := strings.Repeat("x", MaxInline+1)
	other := long[:MaxInline] + "y"
	obs := Observation{Entries: []Entry{
		{Path: "/", Mode: fs.ModeDir | 0o755},
		{Path: "/a", Mode: 0o644, Size: 1, Data: "k"},
		{Path: "/d", Mode: fs.ModeDir | 0o755},
		{Path: "/long", Mode: 0o644, Size: int64(len(long)), Data: long[:MaxInline], Sum: sha256.Sum256([]byte(long))},
	}}
	for _, tc := range []struct {
		path, data   string
		found, holds bool
	}{
		{"/a", "k", true, true}, {"/a", "", true, false}, {"/d", "", true, false}, {"/none", "", false, false},
		{"/long", long, true, true}, {"/long", other, true, false},
	} {
		e, ok := obs.Find(tc.path)
		if ok != tc.found || e.Holds(tc.data) != tc.holds {
			t.Errorf("Find(%q) found %v, holds %d bytes %v; want %v, %v", tc.path, ok, len(tc.data), e.Holds(tc.data), tc.found, tc.holds)
		}
	}
}
