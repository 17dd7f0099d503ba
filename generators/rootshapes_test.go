package generators

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// realShapes are the shapes of worlds and grants that real servers get wrong, each
// a test of one adapted scenario: seen reports whether sc draws the shape
// (its world and an op that meets it).
var realShapes = []struct {
	name string
	seen func(sc *scenario.Scenario) bool
}{
	{"a write through a dangling link in a write root to a new file outside every root", danglingOutWrite},
	{"a file below a path that differs from a read root only in letter case, read or written", caseVariant(false)},
	{"a directory below a path that differs from a read root only in letter case, read or written", caseVariant(true)},
	{"a root that is a string prefix of another, and an op under the longer one", prefixRoots},
	{`a file beside a root named as the root and a backslash`, backslashSibling(false)},
	{`a directory beside a root named as the root and a backslash`, backslashSibling(true)},
	{"a read through a link out of the second of two read roots to a file outside them (a sandbox may check its first apart)", linkOutOfSecondRoot},
}

// linkOutOfSecondRoot reports whether an op of sc reads, through a link
// below the second of two read roots, a file outside every root: what a
// sandbox that resolves links only in its first directory (a base path,
// with more allowed paths checked lexically) leaks.
func linkOutOfSecondRoot(sc *scenario.Scenario) bool {
	if len(sc.Grant.FSRead) != 2 {
		return false
	}
	second := spec.Canonical(sc.Grant.FSRead[1])
	links := linkTable(sc)
	for _, op := range fsOps(sc) {
		c := spec.Canonical(op.Args[0])
		on, _ := linksOn(links, c)
		if op.Kind != core.OpRead || len(on) == 0 || !under(on[0], second) || under(on[0], spec.Canonical(sc.Grant.FSRead[0])) {
			continue
		}
		dst, _ := hops(links, c)
		if _, exists := fileAt(sc, dst); exists && !underAny(dst, sc.Grant.FSRead) && !underAny(dst, sc.Grant.FSWrite) {
			return true
		}
	}
	return false
}

// TestLinkedRootsDrawn: grant roots that are links, and roots under a
// linked parent, are drawn with ops under them, in the default campaign's
// first streams; the real-disk adapters leave every such scenario out (a
// real sandbox opens its root through the root's own link by design); and
// roots-resolved-at-start, which holds paths to the roots as they
// resolved at its start, is killed on them (a finding of confinement or
// verdict-matches-model) while it passes the worlds whose roots are not
// links.
func TestLinkedRootsDrawn(t *testing.T) {
	const n, want = 3000, 20
	m, ok := mutants.Lookup("roots-resolved-at-start")
	if !ok {
		t.Fatal("no mutant roots-resolved-at-start")
	}
	at, above, killed := 0, 0, 0
	for i := range n {
		sc := seeded(i)
		isAt, isAbove := rootLinked(true)(sc), rootLinked(false)(sc)
		if !isAt && !isAbove {
			if i%10 == 0 { // a sample: the mutant is the reference there
				if fs := checkFindings(t, m.Factory, sc); len(fs) > 0 {
					t.Fatalf("seeded scenario %d has no linked root, but roots-resolved-at-start fails it: %s\n%s", i, fs[0], sc.Format())
				}
			}
			continue
		}
		if isAt {
			at++
		}
		if isAbove {
			above++
		}
		if realsut.AdaptFS(sc) != nil || realsut.AdaptOneList(sc) != nil {
			t.Errorf("seeded scenario %d has a linked root, and a real-disk adapter keeps it:\n%s", i, sc.Format())
		}
		for _, f := range checkFindings(t, m.Factory, sc) {
			if f.Invariant == oracle.Confinement || f.Invariant == oracle.VerdictMatchesModel {
				killed++
				break
			}
		}
	}
	t.Logf("%d of %d seeded scenarios with a read root that is a link, %d with one under a linked parent; roots-resolved-at-start killed by %d", at, n, above, killed)
	if at < want || above < want {
		t.Errorf("roots that are links in %d, under a linked parent in %d of %d seeded scenarios, want at least %d each", at, above, n, want)
	}
	if killed < want {
		t.Errorf("roots-resolved-at-start killed by %d of the linked-root scenarios, want at least %d", killed, want)
	}
}

// checkFindings is oracle.Check's findings on sc for the sandbox f builds.
func checkFindings(t *testing.T, f core.Factory, sc *scenario.Scenario) []oracle.Finding {
	t.Helper()
	fs, err := oracle.Check(f, sc, nil, oracle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestRealServerShapes counts, over 3000 seeded scenarios, the scenarios
// that draw each of realShapes in a form the real-sandbox adapters
// keep: after realsut.AdaptOneList (an MCP server's one list of
// directories, no ".." and no backslash) for every shape a path can carry
// without a backslash, and after realsut.AdaptFS (os.Root) otherwise —
// the world is materialized whole, so its backslash names reach the
// sandbox even when no op names them. The floor is one the generator
// that planted links in the first read root only fails (6 scenarios of
// the second-root read), with room for the counts to move as draws are
// added.
func TestRealServerShapes(t *testing.T) {
	const n, want = 3000, 10
	mcp, osroot := make([]int, len(realShapes)), make([]int, len(realShapes))
	for i := range n {
		sc := seeded(i)
		m, o := realsut.AdaptOneList(sc), realsut.AdaptFS(sc)
		for k, s := range realShapes {
			if m != nil && s.seen(m) {
				mcp[k]++
			}
			if o != nil && s.seen(o) {
				osroot[k]++
			}
		}
	}
	for k, s := range realShapes {
		t.Logf("%-100s mcp %4d  osroot %4d", s.name, mcp[k], osroot[k])
		got := mcp[k]
		if strings.Contains(s.name, "backslash") {
			got = osroot[k] // no op with a backslash is asked of a real sandbox; the world still holds it
		}
		if got < want {
			t.Errorf("%s: in %d of %d seeded scenarios as a real sandbox's adapter keeps them, want at least %d", s.name, got, n, want)
		}
	}
}

// fsOps are sc's fs_read and fs_write ops, canonical path first.
func fsOps(sc *scenario.Scenario) (out []core.Op) {
	for _, st := range sc.Steps {
		if (st.Op.Kind == core.OpRead || st.Op.Kind == core.OpWrite) && len(st.Op.Args) > 0 {
			out = append(out, st.Op)
		}
	}
	return out
}

func danglingOutWrite(sc *scenario.Scenario) bool {
	links := linkTable(sc)
	for _, op := range fsOps(sc) {
		c := spec.Canonical(op.Args[0])
		t, ok := links[c]
		if op.Kind != core.OpWrite || !ok || !underAny(c, sc.Grant.FSWrite) {
			continue
		}
		dst, _ := hops(links, c)
		_, exists := fileAt(sc, dst)
		_, parentExists := dirAt(sc, path.Dir(dst))
		if dst == target(c, t) && !exists && parentExists && !underAny(dst, sc.Grant.FSRead) && !underAny(dst, sc.Grant.FSWrite) {
			return true
		}
	}
	return false
}

// dirAt reports whether some file of sc's world lies below the canonical
// path d, so that a real tree holds d as a directory.
func dirAt(sc *scenario.Scenario, d string) (string, bool) {
	for _, f := range sc.World.Files {
		if c := spec.Canonical(f.Path); strings.HasPrefix(c, d+"/") {
			return c, true
		}
	}
	return "", false
}

// caseVariant sees a world file (below a directory, when dir) whose path
// differs from a read root's only in the case of the root's letters, and an
// op on that path, or on a path in that directory.
func caseVariant(dir bool) func(*scenario.Scenario) bool {
	return func(sc *scenario.Scenario) bool {
		for _, f := range sc.World.Files {
			c := spec.Canonical(f.Path)
			for _, r := range sc.Grant.FSRead {
				b := rootBase(r)
				if b == "" || len(c) <= len(b) || c[len(b)] != '/' || c[:len(b)] == b || !strings.EqualFold(c[:len(b)], b) {
					continue
				}
				if rest := c[len(b)+1:]; strings.Contains(rest, "/") != dir {
					continue
				}
				if opNear(sc, c, dir) {
					return true
				}
			}
		}
		return false
	}
}

// opNear reports whether an fs op of sc names the canonical path c, or,
// when dir, a path in c's directory.
func opNear(sc *scenario.Scenario, c string, dir bool) bool {
	for _, op := range fsOps(sc) {
		p := spec.Canonical(op.Args[0])
		if p == c || dir && path.Dir(p) == path.Dir(c) {
			return true
		}
	}
	return false
}

func prefixRoots(sc *scenario.Scenario) bool {
	roots := sc.Grant.FSRead
	for _, a := range roots {
		for _, b := range roots {
			ba, bb := rootBase(a), rootBase(b)
			if ba == "" || len(bb) <= len(ba) || !strings.HasPrefix(bb, ba) || bb[len(ba)] == '/' {
				continue
			}
			for _, op := range fsOps(sc) {
				if under(spec.Canonical(op.Args[0]), bb) {
					return true
				}
			}
		}
	}
	return false
}

// backslashSibling sees a world file (below a directory, when dir) whose
// first name beyond a root's last is the root's name and a backslash.
func backslashSibling(dir bool) func(*scenario.Scenario) bool {
	return func(sc *scenario.Scenario) bool {
		for _, f := range sc.World.Files {
			c := spec.Canonical(f.Path)
			for _, r := range slices.Concat(sc.Grant.FSRead, sc.Grant.FSWrite) {
				b := rootBase(r)
				if b == "" || !strings.HasPrefix(c, b+`\`) {
					continue
				}
				if strings.Contains(c[len(b):], "/") == dir {
					return true
				}
			}
		}
		return false
	}
}

// rootLinked sees a read root that is itself a link (at) or lies below one
// (not at), and an fs op below it.
func rootLinked(at bool) func(*scenario.Scenario) bool {
	return func(sc *scenario.Scenario) bool {
		links := linkTable(sc)
		for _, r := range sc.Grant.FSRead {
			b := rootBase(r)
			if b == "" {
				continue
			}
			_, isLink := links[b]
			above := false
			for a := path.Dir(b); a != "/"; a = path.Dir(a) {
				_, ok := links[a]
				above = above || ok
			}
			if at && !isLink || !at && !above {
				continue
			}
			for _, op := range fsOps(sc) {
				if under(spec.Canonical(op.Args[0]), b) {
					return true
				}
			}
		}
		return false
	}
}

// TestPrefixRootsCatchRawPrefix: in scenarios that grant a root and a
// longer root it is a string prefix of, the raw-prefix mutant lets through
// an op on a path that begins with the longer root without being under it
// (/work2shop/secret on a grant of /work and /work2), which the reference
// denies: the shape reaches the defect it exists for.
func TestPrefixRootsCatchRawPrefix(t *testing.T) {
	m, ok := mutants.Lookup("raw-prefix")
	if !ok {
		t.Fatal("no raw-prefix mutant")
	}
	caught := 0
	for i := range 3000 {
		sc := seeded(i)
		long := longerPrefixRoot(sc.Grant.FSRead)
		if long == "" {
			continue
		}
		ref := core.NewReference(must.Grant(sc.Grant), refworld.New(sc.World))
		mut, err := m.Factory(must.Grant(sc.Grant), refworld.New(sc.World))
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range sc.Steps {
			r, w := ref.Run(st.Op), mut.Run(st.Op)
			if r.Hard || w.Hard {
				break
			}
			if st.Op.Kind != core.OpRead || len(st.Op.Args) != 1 {
				continue
			}
			c := spec.Canonical(st.Op.Args[0])
			if strings.HasPrefix(c, long) && !under(c, long) && r.Kind == core.FSReadDenied && w.Kind != r.Kind {
				caught++
				break
			}
		}
	}
	t.Logf("raw-prefix caught in %d scenarios", caught)
	if caught < 5 {
		t.Errorf("raw-prefix let a sibling of the longer of two prefix roots through in %d of 3000 scenarios, want at least 5", caught)
	}
}

// longerPrefixRoot is the base of a read root another read root's base is
// a string prefix of (/work2 for /work and /work2), or "".
func longerPrefixRoot(roots []string) string {
	for _, a := range roots {
		for _, b := range roots {
			ba, bb := rootBase(a), rootBase(b)
			if ba != "" && len(bb) > len(ba) && strings.HasPrefix(bb, ba) && bb[len(ba)] != '/' {
				return bb
			}
		}
	}
	return ""
}

// TestLaterRootLinksCatchLaterRootsLexical: in scenarios that grant two
// roots, as an MCP server's one list of directories takes them, the
// later-roots-lexical mutant, which resolves links under its first root
// only, reads or writes through a link in the second and is killed
// (confinement): the links are planted in either root, whichever comes
// first in the grant.
func TestLaterRootLinksCatchLaterRootsLexical(t *testing.T) {
	m, ok := mutants.Lookup("later-roots-lexical")
	if !ok {
		t.Fatal("no later-roots-lexical mutant")
	}
	killed, two := 0, 0
	for i := range 3000 {
		sc := realsut.AdaptOneList(seeded(i))
		if sc == nil || len(sc.Grant.FSRead) != 2 {
			continue
		}
		two++
		if slices.ContainsFunc(checkFindings(t, m.Factory, sc), func(f oracle.Finding) bool { return f.Invariant == oracle.Confinement }) {
			killed++
		}
	}
	t.Logf("later-roots-lexical killed in %d of %d two-root scenarios an MCP server is asked", killed, two)
	if killed < 20 {
		t.Errorf("later-roots-lexical killed in %d of 3000 seeded scenarios as an MCP server is asked them, want at least 20", killed)
	}
}
