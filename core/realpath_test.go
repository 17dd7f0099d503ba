package core_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestRealpathJournal: the reference world resolves a path to its Clean
// form, journaling the path as asked and the answer.
func TestRealpathJournal(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{})
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
	w = refworld.New(scenario.WorldSpec{Files: []scenario.File{{Path: "", Data: "dot"}, {Path: "/a", Data: "A"}}})
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
	if got, want := (refworld.Entry{Call: refworld.CallRealpath, Name: "/work/loop"}).String(), `realpath /work/loop -> ""`; got != want {
		t.Errorf("a loop's entry prints %q, want %q", got, want)
	}
}

// TestResolvedPathIsJudgedAndUsed: SPEC §5 step 4 over a world with links.
// The path resolved is judged by the same roots (a denial on it keeps its
// realpath entry and nothing else), the effect acts on it rather than on
// the path asked, a loop is not_found, and nothing is resolved before the
// lexical checks pass.
func TestResolvedPathIsJudgedAndUsed(t *testing.T) {
	g := must.Grant(core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"}, Budgets: defaultBudgets})
	w := refworld.New(scenario.WorldSpec{
		Files: []scenario.File{{Path: "/work/real", Data: "R"}, {Path: "/etc/passwd", Data: "root"}},
		Links: []scenario.Link{
			{Path: "/work/escape", Target: "/etc/passwd"}, {Path: "/work/out/escape", Target: "../../etc/cron"},
			{Path: "/work/sibling", Target: "/workshop/x"},
			{Path: "/work/alias", Target: "real"}, {Path: "/work/out/alias", Target: "/work/out/real"},
			{Path: "/work/loop", Target: "loop"}, {Path: "/work/out/loop", Target: "/work/out/loop2"}, {Path: "/work/out/loop2", Target: "loop"},
		},
		Clock: defaultClock,
	})
	journal := func(from int) []string {
		var out []string
		for _, e := range w.Journal()[from:] {
			out = append(out, e.String())
		}
		return out
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
		j := w.JournalLen()
		if diff := cmp.Diff(tt.want, s.Run(tt.o)); diff != "" {
			t.Errorf("Run(%s) (%s) mismatch (-want +got):\n%s", fmtOp(tt.o), tt.reason, diff)
		}
		if diff := cmp.Diff(tt.journal, journal(j), cmpopts.EquateEmpty()); diff != "" {
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
	j := w.JournalLen()
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
	if diff := cmp.Diff(want, journal(j)); diff != "" {
		t.Errorf("journal through links mismatch (-want +got):\n%s", diff)
	}
	if got, _ := w.Lookup("/work/out/real"); got != "y" {
		t.Errorf("the write through /work/out//alias stored %q at its target, want %q", got, "y")
	}
}

// TestWorldFollowsLinks: the world's reads and writes follow links as a
// real file system does, whether or not the sandbox resolved first (SPEC
// §13): a write through a dangling link creates its target, through a loop
// it reaches nothing, a directory link leads a new file out, and a
// resolved answer resolves to itself.
func TestWorldFollowsLinks(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{
		Files: []scenario.File{{Path: "/etc/passwd", Data: "root"}, {Path: "/work/l", Data: "shadowed by the link"}},
		Links: []scenario.Link{
			{Path: "/work/l", Target: "/etc/passwd"}, {Path: "/work/dangling", Target: "/work/new"},
			{Path: "/work/loop", Target: "/work/loop"}, {Path: "/work/dir", Target: "/etc"},
		},
	})
	if got, ok := w.Read("/work/l"); got != "root" || !ok {
		t.Errorf("Read through a link = %q, %v; want root, true", got, ok)
	}
	w.Write("/work/dangling", "created")
	w.Write("/work/dir/cron", "pwned")
	w.Write("/work/loop", "lost")
	want := map[string]string{"/etc/passwd": "root", "/work/l": "shadowed by the link", "/work/new": "created", "/etc/cron": "pwned"}
	if diff := cmp.Diff(want, w.Files()); diff != "" {
		t.Errorf("Files() after writes through links mismatch (-want +got):\n%s", diff)
	}
	if got, ok := w.Read("/work/loop"); got != "" || ok {
		t.Errorf("Read through a loop = %q, %v; want nothing", got, ok)
	}
	if got, ok := w.Lookup("/work/dir/cron"); got != "pwned" || !ok {
		t.Errorf("Lookup through a directory link = %q, %v; want pwned, true", got, ok)
	}
	journal := []string{"read /work/l", "write /work/dangling created", "write /work/dir/cron pwned", "write /work/loop lost", "read /work/loop"}
	var got []string
	for _, e := range w.Journal() {
		got = append(got, e.String())
	}
	if diff := cmp.Diff(journal, got); diff != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", diff)
	}
}

// TestLinkLimit: a chain of MaxLinks links resolves; one more is a loop.
func TestLinkLimit(t *testing.T) {
	var links []scenario.Link
	for i := 0; i <= spec.MaxLinks; i++ {
		links = append(links, scenario.Link{Path: fmt.Sprintf("/c/%d", i), Target: fmt.Sprintf("%d", i+1)})
	}
	tmpl := refworld.Prepare(scenario.WorldSpec{Links: links})
	if got, ok := tmpl.Resolve("/c/1"); got != fmt.Sprintf("/c/%d", spec.MaxLinks+1) || !ok {
		t.Errorf("a chain of %d links resolves to %q, %v; want /c/%d, true", spec.MaxLinks, got, ok, spec.MaxLinks+1)
	}
	if got, ok := tmpl.Resolve("/c/0"); got != "" || ok {
		t.Errorf("a chain of %d links resolves to %q, %v; want a loop", spec.MaxLinks+1, got, ok)
	}
	for _, p := range []string{"/c/5/x", "/c/40", "/d/../c/39"} {
		r, ok := tmpl.Resolve(p)
		if again, ok2 := tmpl.Resolve(r); !ok || !ok2 || again != r {
			t.Errorf("Resolve(%q) = %q, which resolves to %q, %v: an answer must resolve to itself", p, r, again, ok2)
		}
	}
}

// randomLinkWorld returns links among /a/0… and /b/0…: chains long enough
// that the MaxLinks limit falls inside them, cycles, directory links and
// targets with "." and "..", relative and absolute; and paths that go in
// through them at every point.
func randomLinkWorld(r *rand.Rand) ([]scenario.Link, []string) {
	dirs := []string{"a", "b"}
	name := func() string { return fmt.Sprintf("/%s/%d", dirs[r.IntN(2)], r.IntN(60)) }
	var links []scenario.Link
	for range 1 + r.IntN(3) { // chains of 30 to 45 links
		d, n, start := dirs[r.IntN(2)], 30+r.IntN(16), r.IntN(20)
		for i := range n {
			target := fmt.Sprint(start + i + 1) // relative: the link's directory
			if r.IntN(4) == 0 {
				target = fmt.Sprintf("/%s/%d", d, start+i+1)
			}
			links = append(links, scenario.Link{Path: fmt.Sprintf("/%s/%d", d, start+i), Target: target})
		}
	}
	for range r.IntN(25) { // anything: cycles, directory links, climbs, relative link paths
		targets := []string{name(), "..", ".", "../b", "x/..", name() + "/c", "../" + fmt.Sprint(r.IntN(60)), fmt.Sprint(r.IntN(60)), "/", name()[1:]}
		links = append(links, scenario.Link{Path: name()[r.IntN(2):], Target: targets[r.IntN(len(targets))]})
	}
	r.Shuffle(len(links), func(i, j int) { links[i], links[j] = links[j], links[i] })
	var paths []string
	for range 150 {
		p := name()[r.IntN(5)/4:] // a fifth of them relative
		for range r.IntN(3) {
			p += []string{"/c", "/..", "/.", "/" + fmt.Sprint(r.IntN(60)), "//x"}[r.IntN(5)]
		}
		paths = append(paths, p)
	}
	return links, paths
}

// TestTemplatePreparedAgain: a template prepared again, in the memory of
// the worlds it was prepared for before, resolves every path as a template
// prepared afresh: nothing of an earlier world's links stays.
func TestTemplatePreparedAgain(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 40))
	reused := new(refworld.Template)
	for world := range 300 {
		links, paths := randomLinkWorld(r)
		reused.Prepare(scenario.WorldSpec{Links: links})
		fresh := refworld.Prepare(scenario.WorldSpec{Links: links})
		for _, p := range paths {
			want, wantOK := fresh.Resolve(p)
			if got, ok := reused.Resolve(p); got != want || ok != wantOK {
				t.Fatalf("world %d: Resolve(%q) = %q, %v on a template prepared again; %q, %v on a fresh one (links %v)",
					world, p, got, ok, want, wantOK, links)
			}
		}
	}
}
