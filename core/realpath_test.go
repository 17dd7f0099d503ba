package core_test

import (
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// linkedWorld is the reference world with symbolic links in front of its
// VFS, as SPEC §13 will have them, simplified to whole paths: a path whose
// Clean is a key of links resolves to its value, "" being a loop; every
// other path resolves to Clean(p). It keeps a journal of its own VFS calls, where the realpath
// entries carry its answers (the RefWorld under it has no links).
type linkedWorld struct {
	*core.RefWorld
	links   map[string]string
	journal []string
}

func (w *linkedWorld) Realpath(p string) (string, bool) {
	r := path.Clean(p)
	if t, isLink := w.links[r]; isLink {
		r = t
	}
	w.journal = append(w.journal, core.Entry{Call: core.CallRealpath, Name: p, Arg: r}.String())
	return r, r != ""
}

func (w *linkedWorld) Read(p string) (string, bool) {
	w.journal = append(w.journal, core.Entry{Call: core.CallRead, Name: p}.String())
	return w.RefWorld.Read(p)
}

func (w *linkedWorld) Write(p, data string) {
	w.journal = append(w.journal, core.Entry{Call: core.CallWrite, Name: p, Arg: data}.String())
	w.RefWorld.Write(p, data)
}

// TestRealpathJournal: the reference world resolves a path to its Clean
// form, journaling the path as asked and the answer.
func TestRealpathJournal(t *testing.T) {
	w := core.NewWorld(core.WorldSpec{})
	for _, tt := range []struct{ p, want, entry string }{
		{"/work/a", "/work/a", "realpath /work/a -> /work/a"},
		{"//work/./a/", "/work/a", "realpath //work/./a/ -> /work/a"},
		{"work/../a", "a", "realpath work/../a -> a"},
		{"", ".", `realpath "" -> .`},
		{"/work/a b", "/work/a b", `realpath "/work/a b" -> "/work/a b"`},
	} {
		j := w.JournalLen()
		r, ok := w.Realpath(tt.p)
		if r != tt.want || !ok {
			t.Errorf("Realpath(%q) = %q, %v; want %q, true", tt.p, r, ok, tt.want)
		}
		if got := w.Journal()[j:]; len(got) != 1 || got[0].String() != tt.entry {
			t.Errorf("Realpath(%q) journaled %v, want [%s]", tt.p, got, tt.entry)
		}
	}
	// Reads and writes key by Canonical, whatever was resolved before.
	w = core.NewWorld(core.WorldSpec{Files: []core.File{{Path: "", Data: "dot"}, {Path: "/a", Data: "A"}}})
	for _, tt := range []struct{ resolve, read, want string }{
		{"", "", "dot"}, {"/a", "/a", "A"}, {"/a", "/a/", "A"}, {"/a", "", "dot"}, {"/a/", ".", "dot"},
	} {
		if tt.resolve != "" {
			w.Realpath(tt.resolve)
		}
		if got, ok := w.Read(tt.read); got != tt.want || !ok {
			t.Errorf("Read(%q) after Realpath(%q) = %q, %v; want %q, true", tt.read, tt.resolve, got, ok, tt.want)
		}
	}
	w.Realpath("/b/")
	w.Write("/b", "B")
	w.Write("", "D")
	if got := w.Files(); got["/b"] != "B" || got["."] != "D" {
		t.Errorf("Files() after writes = %q, want /b: B and .: D", got)
	}
	// A loop has no answer: the empty token, never a path.
	if got, want := (core.Entry{Call: core.CallRealpath, Name: "/work/loop"}).String(), `realpath /work/loop -> ""`; got != want {
		t.Errorf("a loop's entry prints %q, want %q", got, want)
	}
}

// TestResolvedPathIsJudgedAndUsed: SPEC §5 step 4 over a world with links.
// The path resolved is judged by the same roots (a denial on it keeps its
// realpath entry and nothing else), the effect acts on it rather than on
// the path asked, a loop is not_found, and nothing is resolved before the
// lexical checks pass.
func TestResolvedPathIsJudgedAndUsed(t *testing.T) {
	g := core.MustGrant(core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"}, Budgets: defaultBudgets})
	w := &linkedWorld{
		RefWorld: core.NewWorld(core.WorldSpec{Files: []core.File{
			{Path: "/work/real", Data: "R"}, {Path: "/etc/passwd", Data: "root"},
		}, Clock: defaultClock}),
		links: map[string]string{
			"/work/escape": "/etc/passwd", "/work/out/escape": "/etc/cron",
			"/work/sibling": "/workshop/x",
			"/work/alias":   "/work/real", "/work/out/alias": "/work/out/real",
			"/work/loop": "", "/work/out/loop": "",
		},
	}
	s := core.NewReference(g, w)
	before := w.Files()
	for i, tt := range []struct {
		o       core.Op
		want    core.Result
		journal []string
		reason  string
	}{
		{op("fs_read", "/work/escape"), soft(core.FSReadDenied), []string{"realpath /work/escape -> /etc/passwd"}, "a link out of the roots: denied on the resolved path"},
		{op("fs_read", "/work//sibling"), soft(core.FSReadDenied), []string{"realpath /work//sibling -> /workshop/x"}, "a link to a prefix sibling"},
		{op("fs_write", "/work/out/escape", "x"), soft(core.FSWriteDenied), []string{"realpath /work/out/escape -> /etc/cron"}, "a write through a link out of the roots"},
		{op("fs_write", "/work/out/loop", "x"), soft(core.NotFound), []string{`realpath /work/out/loop -> ""`}, "a loop is not_found, for a write too"},
		{op("fs_read", "/work/loop"), soft(core.NotFound), []string{`realpath /work/loop -> ""`}, "a loop"},
		{op("fs_read", "/etc/passwd"), soft(core.FSReadDenied), nil, "lexically outside: nothing is resolved"},
		{op("fs_read", "/work/../etc/passwd"), soft(core.PathTraversal), nil, "traversal: nothing is resolved"},
		{op("fs_write", "/work/alias", "x"), soft(core.FSWriteDenied), nil, "under fs_read only: nothing is resolved"},
	} {
		j := len(w.journal)
		if diff := cmp.Diff(tt.want, s.Run(tt.o)); diff != "" {
			t.Errorf("Run(%s) (%s) mismatch (-want +got):\n%s", fmtOp(tt.o), tt.reason, diff)
		}
		if diff := cmp.Diff(tt.journal, w.journal[j:], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Run(%s) (%s) journal mismatch (-want +got):\n%s", fmtOp(tt.o), tt.reason, diff)
		}
		if diff := cmp.Diff(before, w.Files()); diff != "" {
			t.Errorf("Run(%s) (%s) changed the VFS (-before +after):\n%s", fmtOp(tt.o), tt.reason, diff)
		}
		if got := s.Usage().Ops; got != int64(i+1) {
			t.Errorf("Run(%s): %d ops charged, want %d", fmtOp(tt.o), got, i+1)
		}
	}
	// Controls: a link that stays inside the roots is followed, and the
	// effect acts on its target.
	j := len(w.journal)
	if diff := cmp.Diff(ok("R"), s.Run(op("fs_read", "/work/alias"))); diff != "" {
		t.Errorf("read through a link inside the roots mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ok(""), s.Run(op("fs_write", "/work/out//alias", "y"))); diff != "" {
		t.Errorf("write through a link inside the roots mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(soft(core.NotFound), s.Run(op("fs_read", "/work/plain/missing"))); diff != "" {
		t.Errorf("read of a path without links mismatch (-want +got):\n%s", diff)
	}
	want := []string{
		"realpath /work/alias -> /work/real", "read /work/real",
		"realpath /work/out//alias -> /work/out/real", "write /work/out/real y",
		"realpath /work/plain/missing -> /work/plain/missing", "read /work/plain/missing",
	}
	if diff := cmp.Diff(want, w.journal[j:]); diff != "" {
		t.Errorf("journal through links mismatch (-want +got):\n%s", diff)
	}
	if got, _ := w.Lookup("/work/out/real"); got != "y" {
		t.Errorf("the write through /work/out//alias stored %q at its target, want %q", got, "y")
	}
}
