//go:build unix

package realfs

import (
	"errors"
	"fmt"
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

// newBase returns a base directory nested deep inside t.TempDir(), so
// that even a moat built too shallow keeps an escaping write inside the
// test's own directory.
func newBase(t *testing.T) string {
	return filepath.Join(t.TempDir(), strings.Repeat("pad/", 16)+"base")
}

func materialize(t *testing.T, ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op) *Tree {
	t.Helper()
	tr, err := Materialize(newBase(t), ws, g, ops)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// real is the real path of world path p in tr.
func real(t *testing.T, tr *Tree, p string) string {
	t.Helper()
	r, ok := tr.Path(p)
	if !ok {
		t.Fatalf("Path(%q): false", p)
	}
	return r
}

var (
	layoutWorld = scenario.WorldSpec{
		Files: []scenario.File{
			{Path: "/work/a.txt", Data: "alpha"},
			{Path: "/work//sub/b.txt", Data: "beta"},
			{Path: "/etc/passwd", Data: "root:x:0:0"},
		},
		Links: []scenario.Link{
			{Path: "/work/ln-passwd", Target: "/etc/passwd"},     // absolute
			{Path: "/work/ln-in", Target: "a.txt"},               // relative
			{Path: "/work/ln-dangle", Target: "/etc/cron.d/sbx"}, // dangling
			{Path: "/work/loop", Target: "loop"},                 // a loop
			{Path: "/work/d", Target: "/etc"},                    // a directory
			{Path: "/work/up", Target: "../etc/passwd"},          // climbs, inside T
			{Path: "/work/none", Target: ""},                     // no link
		},
	}
	layoutGrant = core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/", "/srv/data"}}
	layoutOps   = []core.Op{
		{Kind: core.OpWrite, Args: []string{"/tmp/new/x", "data"}},        // parent made
		{Kind: core.OpRead, Args: []string{"/work/d/newdir/f"}},           // through a link: not made
		{Kind: core.OpWrite, Args: []string{"/work/a.txt/x", "data"}},     // a file in the way: not made
		{Kind: core.OpWrite, Args: []string{"/opt/../var/x", "data"}},     // traversal: not made
		{Kind: core.OpWrite, Args: []string{"/home/u/x"}},                 // malformed: not made
		{Kind: core.OpFetch, Args: []string{"host", "/../../../x"}},       // no file, but climbs
		{Kind: core.OpRead, Args: []string{"relative/dir/x"}},             // relative: not made
		{Kind: core.OpRead, Args: []string{"/work/deep/er/file", "junk"}}, // malformed: not made
	}
)

// TestMaterializeLayout: every kind of entry is on disk as SPEC §13 says,
// inside T, and T sits at the bottom of the moat.
func TestMaterializeLayout(t *testing.T) {
	tr := materialize(t, layoutWorld, layoutGrant, layoutOps)
	root := tr.Root()
	// D = 1 + 3 (the fetch's path) + 1 (/work/up's target).
	if want := filepath.Join(tr.base, "m/m/m/m/m/t"); root != want {
		t.Errorf("Root() = %s, want %s", root, want)
	}
	type want struct {
		mode   fs.FileMode // type and permission bits; links: just the type
		data   string
		target string
	}
	secret := "root:x:0:0" + canary("/etc/passwd")
	wants := map[string]want{
		"/work":           {mode: fs.ModeDir | 0o755},
		"/work/a.txt":     {mode: 0o644, data: "alpha"},
		"/work/sub":       {mode: fs.ModeDir | 0o755},
		"/work/sub/b.txt": {mode: 0o644, data: "beta"},
		"/etc":            {mode: fs.ModeDir | 0o755},
		"/etc/passwd":     {mode: 0o644, data: secret},
		"/work/ln-passwd": {mode: fs.ModeSymlink, target: root + "/etc/passwd"},
		"/work/ln-in":     {mode: fs.ModeSymlink, target: "a.txt"},
		"/work/ln-dangle": {mode: fs.ModeSymlink, target: root + "/etc/cron.d/sbx"},
		"/work/loop":      {mode: fs.ModeSymlink, target: "loop"},
		"/work/d":         {mode: fs.ModeSymlink, target: root + "/etc"},
		"/work/up":        {mode: fs.ModeSymlink, target: "../etc/passwd"},
		"/work/out":       {mode: fs.ModeDir | 0o755},
		"/srv/data":       {mode: fs.ModeDir | 0o755},
		"/tmp/new":        {mode: fs.ModeDir | 0o755},
	}
	for p, w := range wants {
		info, err := os.Lstat(real(t, tr, p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		mode := info.Mode()
		if mode&fs.ModeSymlink != 0 {
			mode = fs.ModeSymlink
		}
		if mode != w.mode {
			t.Errorf("%s: mode %v, want %v", p, mode, w.mode)
		}
		switch {
		case w.mode.IsRegular():
			if b, _ := os.ReadFile(real(t, tr, p)); string(b) != w.data {
				t.Errorf("%s: content %q, want %q", p, b, w.data)
			}
		case w.mode == fs.ModeSymlink:
			if got, _ := os.Readlink(real(t, tr, p)); got != w.target {
				t.Errorf("%s: target %q, want %q", p, got, w.target)
			}
		}
	}
	// Through the links, as a sandbox would meet them.
	if b, err := os.ReadFile(real(t, tr, "/work/up")); string(b) != secret {
		t.Errorf("reading through /work/up: %q, %v", b, err)
	}
	if _, err := os.Stat(real(t, tr, "/work/loop")); err == nil {
		t.Errorf("/work/loop resolves; want a loop")
	}
	for _, p := range []string{"/work/none", "/etc/newdir", "/work/a.txt/x", "/var", "/opt", "/home", "/relative", "/work/deep"} {
		if _, err := os.Lstat(real(t, tr, p)); !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscallENOTDIR) {
			t.Errorf("%s: %v, want nothing there", p, err)
		}
	}
}

// TestMaterializeUmask: modes are 0644 and 0755 whatever the umask.
func TestMaterializeUmask(t *testing.T) {
	old := setUmask(0o077)
	defer setUmask(old)
	tr := materialize(t, layoutWorld, layoutGrant, layoutOps)
	obs, err := tr.Observe()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range obs.Entries {
		if p := e.Mode.Perm(); e.Mode.IsDir() && p != 0o755 || e.Mode.IsRegular() && p != 0o644 {
			t.Errorf("%s: mode %v", e.Path, e.Mode)
		}
	}
}

// TestRootAndPath: T has no link in its path even when dir has one, and
// Path joins verbatim.
func TestRootAndPath(t *testing.T) {
	tmp := t.TempDir()
	if err := os.Mkdir(filepath.Join(tmp, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(tmp, "via")); err != nil {
		t.Fatal(err)
	}
	tr, err := Materialize(filepath.Join(tmp, "via"), scenario.WorldSpec{}, core.GrantSpec{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(tr.Root())
	if err != nil || resolved != tr.Root() || !filepath.IsAbs(tr.Root()) {
		t.Errorf("Root() = %s, resolved %s, %v", tr.Root(), resolved, err)
	}
	if got, ok := tr.Path("/work/../etc"); !ok || got != tr.Root()+"/work/../etc" {
		t.Errorf(`Path("/work/../etc") = %q, %v`, got, ok)
	}
	if got, ok := tr.Path("/"); !ok || got != tr.Root()+"/" {
		t.Errorf(`Path("/") = %q, %v`, got, ok)
	}
	for _, p := range []string{"", "work/x", "../x"} {
		if got, ok := tr.Path(p); ok {
			t.Errorf("Path(%q) = %q, true; want false", p, got)
		}
	}
}

// TestRemove: Remove takes everything, even a directory a sandbox shut.
func TestRemove(t *testing.T) {
	tr := materialize(t, layoutWorld, layoutGrant, nil)
	shut := real(t, tr, "/work/sub")
	if err := os.Chmod(shut, 0); err != nil {
		t.Fatal(err)
	}
	if err := tr.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(tr.base); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("base still there: %v", err)
	}
}

// TestRestoreInPlace: materializing again in the same directory with the
// same least moat depth keeps T at the same path and the same directory,
// removes what a sandbox left in T and in the moat, and builds a tree
// observed exactly as one built in a fresh directory; a moat deeper than
// the world needs is the depth asked for.
func TestRestoreInPlace(t *testing.T) {
	dir := newBase(t)
	opt := Options{MinDepth: 12}
	first, err := MaterializeWith(dir, layoutWorld, layoutGrant, layoutOps, opt)
	if err != nil {
		t.Fatal(err)
	}
	if first.depth != 12 {
		t.Fatalf("moat depth %d, want the 12 asked for", first.depth)
	}
	before, err := os.Stat(first.Root())
	if err != nil {
		t.Fatal(err)
	}
	// What a sandbox may leave: a file in T, one in the moat, a link
	// where the chain goes on.
	for _, p := range []string{first.Root() + "/stray", filepath.Dir(first.Root()) + "/moat-stray"} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := scenario.WorldSpec{Files: []scenario.File{{Path: "/data/z", Data: "zed"}}}
	g := core.GrantSpec{FSRead: []string{"/data/"}}
	again, err := MaterializeWith(dir, other, g, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(again.Root())
	if err != nil {
		t.Fatal(err)
	}
	if again.Root() != first.Root() || !os.SameFile(before, after) {
		t.Fatalf("T moved or was made anew: %s, then %s", first.Root(), again.Root())
	}
	if ch := changesFromFresh(t, again, other, g, opt); len(ch) != 0 {
		t.Errorf("the tree restored in place differs from a fresh one: %v", ch)
	}
}

// changesFromFresh is how tr, restored in place, differs from a tree of
// ws and g built in a fresh directory.
func changesFromFresh(t *testing.T, tr *Tree, ws scenario.WorldSpec, g core.GrantSpec, opt Options) []Change {
	t.Helper()
	fresh, err := MaterializeWith(newBase(t), ws, g, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tr.Observe()
	if err != nil {
		t.Fatal(err)
	}
	want, err := fresh.Observe()
	if err != nil {
		t.Fatal(err)
	}
	return tr.Changes(want, got)
}

// TestRestoreKeepsRoots: with KeepRoots, a tree restored in place for a
// world with the same roots keeps their directories (a server's working
// directory, a directory bound into a mount namespace), emptied of what
// the sandbox left there, and is observed exactly as a fresh tree; a
// world that has a file where one stood builds all the same.
func TestRestoreKeepsRoots(t *testing.T) {
	dir := newBase(t)
	opt := Options{MinDepth: 3, KeepRoots: true}
	g := core.GrantSpec{FSRead: []string{"/srv/app/"}, FSWrite: []string{"/srv/app/out", "/tmp/w"}}
	first, err := MaterializeWith(dir, scenario.WorldSpec{Files: []scenario.File{{Path: "/srv/app/a", Data: "1"}, {Path: "/srv/x", Data: "2"}, {Path: "/srv/app/out/o", Data: "3"}, {Path: "/tmp/w/f", Data: "4"}}}, g, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	var before []os.FileInfo
	for _, r := range []string{"/srv/app", "/srv/app/out", "/tmp/w"} {
		fi, err := os.Stat(first.Root() + r)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, fi)
	}
	if err := os.WriteFile(first.Root()+"/srv/app/stray", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := scenario.WorldSpec{Files: []scenario.File{{Path: "/srv/app/b/c", Data: "3"}, {Path: "/srv/app/out/p", Data: "5"}, {Path: "/tmp/w/g", Data: "6"}}}
	again, err := MaterializeWith(dir, second, g, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range []string{"/srv/app", "/srv/app/out", "/tmp/w"} {
		after, err := os.Stat(again.Root() + r)
		if err != nil || !os.SameFile(before[i], after) {
			t.Errorf("the root %s was made anew (%v)", r, err)
		}
		if first.Kept(r) || !again.Kept(r) {
			t.Errorf("Kept(%s): %v for the first tree, %v for the second; want false, true", r, first.Kept(r), again.Kept(r))
		}
	}
	if ch := changesFromFresh(t, again, second, g, opt); len(ch) != 0 {
		t.Errorf("the tree restored with its roots kept differs from a fresh one: %v", ch)
	}
	taken := scenario.WorldSpec{Files: []scenario.File{{Path: "/srv/app", Data: "a file"}}}
	if tr, err := MaterializeWith(dir, taken, g, nil, opt); err != nil || tr.Kept("/srv/app") {
		t.Errorf("a world with a file where the kept root stood: %v, root kept: %v", err, err == nil && tr.Kept("/srv/app"))
	}
	if tr, err := MaterializeWith(dir, second, g, nil, opt); err != nil || tr.Kept("/srv/app") {
		t.Errorf("the root made anew after a world without it: %v, said kept: %v", err, err == nil && tr.Kept("/srv/app"))
	}
}

// TestWriteNewRefusesWhatStands: a world file is written only where
// nothing stands, so that a hard link or a named pipe a sandbox put back
// at its path, racing the harness, is an error and not written through.
func TestWriteNewRefusesWhatStands(t *testing.T) {
	dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "keep")
	if err := os.WriteFile(outside, []byte("KEEP"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(dir, "linked")); err != nil {
		t.Skipf("no hard link here: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, name := range []string{"linked", "pipe"} {
		done := make(chan error, 1)
		go func() { done <- WriteNew(r, name, "world") }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("WriteNew over %s: no error", name)
			}
		case <-time.After(time.Minute):
			t.Fatalf("WriteNew over %s has not returned after a minute: it waits on the pipe", name)
		}
	}
	if kept, _ := os.ReadFile(outside); string(kept) != "KEEP" {
		t.Errorf("the file outside holds %q, want KEEP", kept)
	}
	if err := WriteNew(r, "new", "world"); err != nil {
		t.Errorf("WriteNew of a new file: %v", err)
	}
}

// TestRestoreFollowsNoSwappedLink: a sandbox that puts a link to a
// directory of its choosing where the slot, a moat directory, T or a kept
// root stood, even between the harness's look at it and its opening,
// leads the restore nowhere: the tree is not built, and the directory the
// link names, out of the parent or beside the swapped one, keeps its
// files and its mode. A named pipe or a file put there instead is no
// directory either, and the restore does not wait on the pipe. A link
// found below the slot before the restore is removed like anything else
// a sandbox left there.
func TestRestoreFollowsNoSwappedLink(t *testing.T) {
	g := core.GrantSpec{FSRead: []string{"/srv/app/"}}
	ws := scenario.WorldSpec{Files: []scenario.File{{Path: "/srv/app/a", Data: "1"}}}
	opt := Options{MinDepth: 2, KeepRoots: true}
	t.Cleanup(func() { testHookOpenDir = nil })
	if _, err := os.Stat("/proc/self/fd"); err == nil { // where the open files can be counted
		open := openFiles(t)
		defer func() {
			if n := openFiles(t); n > open {
				t.Errorf("%d files open after the restores, %d before: a directory left open on a path that failed", n, open)
			}
		}()
	}
	for _, tc := range []struct {
		at   string // the directory swapped, below the parent
		race bool   // swapped between the look and the opening, else before
		with string // "out" (a link out of the parent), "beside" (a link to a directory beside it), "pipe", "file"
	}{
		{"slot", false, "out"},
		{"slot", true, "out"},
		{"slot", true, "beside"},
		{"slot/m", false, "out"},
		{"slot/m", true, "out"},
		{"slot/m", true, "pipe"},
		{"slot/m", true, "file"},
		{"slot/m/m/t", true, "out"},
		{"slot/m/m/t", true, "beside"},
		{"slot/m/m/t", true, "pipe"},
		{"slot/m/m/t/srv/app", false, "out"},
		{"slot/m/m/t/srv/app", true, "out"},
		{"slot/m/m/t/srv/app", true, "beside"},
	} {
		parentDir := t.TempDir()
		parent, err := os.OpenRoot(parentDir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := MaterializeIn(parent, "slot", ws, g, nil, opt); err != nil {
			t.Fatal(err)
		}
		at := filepath.Join(parentDir, tc.at)
		target := t.TempDir()
		if tc.with == "beside" {
			target = filepath.Join(filepath.Dir(at), "other")
		}
		swap := func() {
			if err := os.MkdirAll(target, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(target, "keep"), []byte("KEEP"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(target, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(at, at+".moved"); err != nil {
				t.Fatal(err)
			}
			switch tc.with {
			case "out":
				err = os.Symlink(target, at)
			case "beside":
				err = os.Symlink("other", at)
			case "pipe":
				err = syscall.Mkfifo(at, 0o644)
			case "file":
				err = os.WriteFile(at, nil, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		testHookOpenDir = nil
		if tc.race {
			testHookOpenDir = func(path string) {
				if path == at {
					swap()
				}
			}
		} else {
			swap()
		}
		done := make(chan error, 1)
		go func() {
			_, err := MaterializeIn(parent, "slot", ws, g, nil, opt)
			done <- err
		}()
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s swapped for a %s: the restore has not returned after a minute: it waits on the pipe", tc.at, tc.with)
		}
		testHookOpenDir = nil
		parent.Close()
		what := fmt.Sprintf("%s swapped for a %s (race %v)", tc.at, tc.with, tc.race)
		switch {
		case tc.race || tc.at == "slot":
			if err == nil || !strings.Contains(err.Error(), "the sandbox replaced it") {
				t.Errorf("%s: err %v, want one that says the sandbox replaced it", what, err)
			}
		case err != nil:
			// A link found in the moat or in T is removed, as anything
			// a sandbox left there is, and the tree built anew.
			t.Errorf("%s before the restore: %v, want the link removed and the tree built", what, err)
		}
		if kept, err := os.ReadFile(filepath.Join(target, "keep")); string(kept) != "KEEP" {
			t.Errorf("%s: the file the link leads to holds %q (%v), want KEEP", what, kept, err)
		}
		if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: the directory the link leads to: %v, want mode 0700", what, modeOrErr(fi, err))
		}
	}
}

// modeOrErr is fi's mode, or err where there is none.
func modeOrErr(fi os.FileInfo, err error) any {
	if err != nil {
		return err
	}
	return fi.Mode()
}

// TestMaterializeClosesWhatItOpens: restoring trees of changing depth,
// where the chain breaks at one level or another, leaves no directory
// open behind.
func TestMaterializeClosesWhatItOpens(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to count open files in")
	}
	dir := newBase(t)
	before := openFiles(t)
	for i := range 20 {
		if _, err := MaterializeWith(dir, leakWorld, leakGrant, nil, Options{MinDepth: 1 + i%4, KeepRoots: i%2 == 0}); err != nil {
			t.Fatal(err)
		}
	}
	if after := openFiles(t); after > before {
		t.Errorf("%d files open after 20 restores, %d before", after, before)
	}
}

// openFiles counts this process's open files.
func openFiles(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// TestChangedUnderSaysSo: an error met rebuilding a tree that reads as
// the tree changing under the harness says so; one that already says the
// sandbox replaced a directory, or another error, is left as it is.
func TestChangedUnderSaysSo(t *testing.T) {
	for _, tc := range []struct {
		err  error
		says bool
	}{
		{&fs.PathError{Op: "mkdirat", Path: "m/t", Err: errors.New("path escapes from parent")}, true},
		{&fs.PathError{Op: "chmodat", Path: "m/m", Err: fs.ErrNotExist}, true},
		{&fs.PathError{Op: "symlinkat", Path: "data/ln", Err: fs.ErrExist}, true},
		{fmt.Errorf("m is no directory now (L---------): %w", errReplaced), false},
		{&fs.PathError{Op: "openat", Path: "m/t", Err: syscall.ELOOP}, true},
		{&fs.PathError{Op: "write", Path: "f", Err: errors.New("no space left on device")}, false},
	} {
		if got := changedUnder(tc.err) != ""; got != tc.says {
			t.Errorf("changedUnder(%v) says the tree changed: %v, want %v", tc.err, got, tc.says)
		}
	}
}

// TestRestoreLeavesOwnEntries: the entries a sandbox keeps for itself in
// its directories (Options.Own) stand through a restore that keeps the
// directory, with what they hold, and are not observed: what the sandbox
// does in them is no change of the world. Another entry of the sandbox's
// is removed as ever.
func TestRestoreLeavesOwnEntries(t *testing.T) {
	dir := newBase(t)
	opt := Options{MinDepth: 2, KeepRoots: true, Own: []string{".own"}}
	g := core.GrantSpec{FSRead: []string{"/srv/app/"}}
	ws := scenario.WorldSpec{Files: []scenario.File{{Path: "/srv/app/a", Data: "1"}}}
	first, err := MaterializeWith(dir, ws, g, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(first.Root()+"/srv/app/.own/locks", 0o755))
	must(t, os.WriteFile(first.Root()+"/srv/app/.own/state", []byte("S"), 0o644))
	must(t, os.WriteFile(first.Root()+"/srv/app/.other", []byte("O"), 0o644))
	before := observeT(t, first)
	must(t, os.WriteFile(first.Root()+"/srv/app/.own/state", []byte("S2"), 0o644))
	if ch := first.Changes(before, observeT(t, first)); len(ch) != 0 {
		t.Errorf("a write in the sandbox's own entry is observed: %v", ch)
	}
	// Named so, but not in a grant root, or a link: observed, and removed.
	must(t, os.MkdirAll(first.Root()+"/srv/.own", 0o755))
	must(t, os.MkdirAll(first.Root()+"/etc/.own", 0o755))
	must(t, os.Mkdir(first.Root()+"/srv/app/sub", 0o755))
	must(t, os.Symlink("/", first.Root()+"/srv/app/sub/.own"))
	seen := map[string]bool{}
	for _, c := range first.Changes(before, observeT(t, first)) {
		seen[c.Path] = true
	}
	for _, p := range []string{"/srv/.own", "/etc/.own", "/srv/app/sub/.own"} {
		if !seen[p] {
			t.Errorf("%s made: not observed (changes %v)", p, seen)
		}
	}
	again, err := MaterializeWith(dir, ws, g, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(again.Root() + "/srv/app/.own/state"); string(data) != "S2" {
		t.Errorf("the sandbox's own entry after the restore: %q, %v; want it left", data, err)
	}
	for _, p := range []string{"/srv/app/.other", "/srv/.own", "/etc/.own", "/srv/app/sub"} {
		if _, err := os.Lstat(again.Root() + p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s, the sandbox's but not its own in a root: %v, want it removed", p, err)
		}
	}
	for _, e := range observeT(t, again).Entries {
		if strings.Contains(e.Path, ".own") {
			t.Errorf("observed %s, in the sandbox's own entry", e.Path)
		}
	}
}

// TestObserveLeavesNotTheTree: a sandbox that swaps a directory of the
// tree for a link out of it, after the walk has listed the directory and
// before it walks what is in it, leads the walk nowhere: no entry of the
// observation holds a file the link names, and the walk sees the
// directory it listed.
func TestObserveLeavesNotTheTree(t *testing.T) {
	ws := scenario.WorldSpec{Files: []scenario.File{{Path: "/etc/passwd", Data: "root"}, {Path: "/srv/app/a", Data: "1"}}}
	g := core.GrantSpec{FSRead: []string{"/srv/app/"}}
	t.Cleanup(func() { testHookWalked = nil })
	for _, at := range []string{"", "/etc", "/srv"} {
		tr, err := Materialize(t.TempDir()+"/base", ws, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		before, err := tr.Observe()
		if err != nil {
			t.Fatal(err)
		}
		decoy := t.TempDir() // the names the walk looks for next, each holding DECOY
		for _, p := range []string{"etc/passwd", "srv/app/a", "passwd", "app/a"} {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(decoy, p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(decoy, p), []byte("DECOY"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		real := tr.root + at
		testHookWalked = func(rel string, listed bool) {
			if !listed || rel != tr.chain+at {
				return
			}
			if err := os.Rename(real, real+".moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(decoy, real); err != nil {
				t.Fatal(err)
			}
		}
		after, err := tr.Observe()
		testHookWalked = nil
		if err != nil {
			t.Fatalf("T%s swapped during the walk: %v", at, err)
		}
		for _, e := range after.Entries {
			if strings.Contains(e.Data, "DECOY") {
				t.Errorf("T%s swapped for a link out during the walk: the observation holds %s from the link's target", at, e.Path)
			}
		}
		if diff := cmp.Diff(before.Entries, after.Entries); diff != "" {
			t.Errorf("T%s swapped during the walk: the walk saw another tree than the one it listed (-before +after):\n%s", at, diff)
		}
	}
}

// TestObserveOpensWhatItLookedAt: a file or directory swapped, between the
// walk's look at it and its opening, for a link to another beside it is
// marked unread, not read or walked as the other.
func TestObserveOpensWhatItLookedAt(t *testing.T) {
	ws := scenario.WorldSpec{Files: []scenario.File{{Path: "/srv/app/a", Data: "1"}, {Path: "/srv/app/z", Data: "DECOY"}, {Path: "/srv/decoy/a", Data: "DECOY"}}}
	g := core.GrantSpec{FSRead: []string{"/srv/"}}
	t.Cleanup(func() { testHookWalked = nil })
	for _, tc := range []struct{ at, beside string }{{"/srv/app/a", "z"}, {"/srv/app", "decoy"}} {
		tr, err := Materialize(t.TempDir()+"/base", ws, g, nil)
		if err != nil {
			t.Fatal(err)
		}
		real := tr.root + tc.at
		testHookWalked = func(rel string, listed bool) {
			if listed || rel != tr.chain+tc.at {
				return
			}
			if err := os.Rename(real, real+".moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tc.beside, real); err != nil {
				t.Fatal(err)
			}
		}
		obs, err := tr.Observe()
		testHookWalked = nil
		if err != nil {
			t.Fatalf("%s swapped during the walk: %v", tc.at, err)
		}
		found := false
		for _, e := range obs.Entries {
			if (e.Path == tc.at || strings.HasPrefix(e.Path, tc.at+"/")) && strings.Contains(e.Data, "DECOY") {
				t.Errorf("%s swapped for a link to %s after the look: %s holds the link's target", tc.at, tc.beside, e.Path)
			}
			if e.Path == tc.at {
				found = true
				if !e.Unread {
					t.Errorf("%s swapped after the look: %+v, want it marked unread", tc.at, e)
				}
			}
		}
		if !found {
			t.Errorf("%s swapped after the look: no entry", tc.at)
		}
	}
}
