package generators

import (
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// linkTable is the world's links by canonical path, as core keeps them.
func linkTable(sc *scenario.Scenario) map[string]string {
	m := make(map[string]string, len(sc.World.Links))
	for _, l := range sc.World.Links {
		m[spec.Canonical(l.Path)] = l.Target
	}
	return m
}

// hops resolves the absolute path p through links as SPEC §13 reads —
// component by component, a link replaced by its target — and counts the
// links it follows, giving up after 100. It is this test's own reading,
// not core's, so that the shapes below are checked against the SPEC.
func hops(links map[string]string, p string) (string, int) {
	todo := strings.Split(p, "/")
	var done []string
	n := 0
	for len(todo) > 0 && n <= 100 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		done = append(done, c)
		t, ok := links["/"+strings.Join(done, "/")]
		if !ok {
			continue
		}
		n++
		done = done[:len(done)-1]
		if strings.HasPrefix(t, "/") {
			done = nil
		}
		todo = append(strings.Split(t, "/"), todo...)
	}
	return "/" + strings.Join(done, "/"), n
}

// linksOn returns the links an op's path names: each name of it
// (backslashes read as slashes) whose path up to there, clean, is a link,
// and whether one of them has a name or a ".." after it. A ".." after a
// link does not unname it: "d/../etc" names the link d, which the kernel
// follows before it climbs.
func linksOn(links map[string]string, p string) (on []string, asParent bool) {
	parts := strings.Split(strings.ReplaceAll(p, `\`, "/"), "/")
	for i, part := range parts {
		if part == "" || part == "." || part == ".." {
			continue
		}
		at := path.Clean("/" + strings.Join(parts[:i+1], "/"))
		if _, ok := links[at]; ok {
			on = append(on, at)
			asParent = asParent || slices.ContainsFunc(parts[i+1:], func(s string) bool { return s != "" && s != "." })
		}
	}
	return on, asParent
}

// besideLinks returns the links of a recipe whose ops name paths beside
// its links (linkRecipe.beside) in the directory of p, when p is one of
// that recipe's reads or writes.
func besideLinks(links map[string]string, p string) []string {
	dir, name := path.Split(path.Clean("/" + strings.ReplaceAll(untrimmed(p), `\`, "/")))
	var on []string
	for _, r := range linkRecipes {
		if !r.beside || !slices.Contains(r.reads, name) && !slices.Contains(r.writes, name) {
			continue
		}
		for _, l := range r.links {
			if _, ok := links[dir+l.name]; ok {
				on = append(on, dir+l.name)
			}
		}
	}
	return on
}

// climbsFromLink reports whether a ".." of p comes right after a name of
// it that is a link: the kernel climbs from where the link leads, on a
// disk where every directory on the way is there.
func climbsFromLink(links map[string]string, p string) bool {
	parts := strings.Split(strings.ReplaceAll(p, `\`, "/"), "/")
	for i := 1; i < len(parts); i++ {
		if _, ok := links[path.Clean("/"+strings.Join(parts[:i], "/"))]; ok && parts[i] == ".." && parts[i-1] != ".." {
			return true
		}
	}
	return false
}

// target is where the link at l points, as a clean absolute path.
func target(l, t string) string {
	if strings.HasPrefix(t, "/") {
		return path.Clean(t)
	}
	return path.Join(path.Dir(l), t)
}

// rootOf is the base of the first root of sc that holds p, and false when
// none does.
func rootOf(p string, sc *scenario.Scenario) (string, bool) {
	for _, r := range slices.Concat(sc.Grant.FSRead, sc.Grant.FSWrite) {
		if b := rootBase(r); b != "" && under(spec.Canonical(p), b) {
			return b, true
		}
	}
	return "", false
}

// TestLinkShapes checks that seeded worlds plant every link shape of issue
// 15 and that ops of the symlink classes read and write through them,
// with the verdicts the reference gives each shape: links in roots to
// prefix siblings, "/", other roots and outside files, relative targets
// with "..", chains, self loops and 2-cycles, chains of exactly 41 links
// (40 hops resolve, 41 are not_found), directory links as the parents of
// new files written outside the roots, links at prefix siblings, links
// mixed with traversal (a ".." after a link climbing out of the roots
// while the clean path stays in one among them), and allowed writes through links that create a
// file (through a dangling link, or under a directory link).
func TestLinkShapes(t *testing.T) {
	var n struct {
		worlds, withLinks                                              int
		toSibling, toSlash, toOtherRoot, toOutsideFile, relativeDotDot int
		chained, selfLoop, twoCycle, chain41, atSibling                int
		newUnderParent, briefParent, traversal, resolved40, loop41     int
		climbPast                                                      int
		createThrough                                                  int
		readThrough, writeThrough                                      [attack.NumClasses]int
	}
	for i := range 2000 {
		sc := seeded(i)
		n.worlds++
		links := linkTable(sc)
		if len(links) > 0 {
			n.withLinks++
		}
		for l, t := range links {
			dst, hopCount := hops(links, l)
			base, inRoot := rootOf(l, sc)
			switch {
			case inRoot && dst != base && strings.HasPrefix(dst, base) && !under(dst, base):
				n.toSibling++
			case inRoot && dst == "/":
				n.toSlash++
			}
			if b, ok := rootOf(dst, sc); inRoot && ok && b != base && !under(dst, base) {
				n.toOtherRoot++
			}
			if _, ok := fileAt(sc, dst); ok && inRoot && !underAny(dst, sc.Grant.FSRead) {
				n.toOutsideFile++
			}
			if !strings.HasPrefix(t, "/") && spec.HasTraversal(t) {
				n.relativeDotDot++
			}
			next := target(l, t)
			if _, ok := links[next]; ok && next != l {
				n.chained++
			}
			if next == l {
				n.selfLoop++
			}
			if back, ok := links[next]; ok && next != l && target(next, back) == l {
				n.twoCycle++
			}
			if hopCount == spec.MaxLinks+1 && !isLinkTarget(links, l) {
				n.chain41++
			}
			if !inRoot && isSibling(l, sc) {
				n.atSibling++
			}
		}
		written := map[string]bool{}
		sb := core.NewReference(must.Grant(sc.Grant), refworld.New(sc.World))
		for _, st := range sc.Steps {
			r := sb.Run(st.Op)
			if st.Class < attack.SymlinkEscape || len(st.Op.Args) == 0 || r.Hard {
				continue
			}
			p := st.Op.Args[0]
			on, asParent := linksOn(links, p)
			if len(on) == 0 {
				continue
			}
			if st.Op.Kind == core.OpRead {
				n.readThrough[st.Class]++
			} else if st.Op.Kind == core.OpWrite {
				n.writeThrough[st.Class]++
			}
			dst, hopCount := hops(links, spec.Canonical(p))
			_, exists := fileAt(sc, dst)
			switch {
			case spec.HasTraversal(p):
				if r.Kind == core.PathTraversal {
					n.traversal++
				}
				land, _ := hops(links, "/"+strings.ReplaceAll(p, `\`, "/"))
				if climbsFromLink(links, p) && underAny(path.Clean(p), sc.Grant.FSRead) && !underAny(land, sc.Grant.FSRead) {
					n.climbPast++
				}
			case st.Op.Kind == core.OpWrite && asParent && !exists && !written[dst] && underAny(p, sc.Grant.FSWrite) && r.Kind == core.FSWriteDenied:
				n.newUnderParent++
				if links[path.Dir(spec.Canonical(p))] == "/etc" {
					n.briefParent++
				}
			case hopCount == spec.MaxLinks && r.Kind != core.NotFound:
				n.resolved40++
			case hopCount > spec.MaxLinks && r.Kind == core.NotFound:
				n.loop41++
			}
			if st.Op.Kind == core.OpWrite && r.Kind == core.OK {
				if !exists && !written[dst] && len(on) > 0 && dst != spec.Canonical(p) {
					n.createThrough++
				}
				written[dst] = true
			}
		}
	}
	t.Logf("%+v", n)
	for _, c := range []struct {
		what string
		got  int
	}{
		{"worlds with links", n.withLinks}, {"links in a root to a prefix sibling", n.toSibling},
		{`links in a root to "/"`, n.toSlash}, {"links in a root to another root", n.toOtherRoot},
		{"links in a root to a file outside the read roots", n.toOutsideFile},
		{`relative targets with ".."`, n.relativeDotDot}, {"links to links", n.chained},
		{"self loops", n.selfLoop}, {"2-cycles", n.twoCycle}, {"chains of exactly 41 links", n.chain41},
		{"links at a prefix sibling", n.atSibling},
		{"writes of a new file under a directory link out of the write roots, denied", n.newUnderParent},
		{"writes of a new file under a directory link to /etc, denied", n.briefParent},
		{"symlink ops with a .. through a link, refused as traversal", n.traversal},
		{"symlink ops whose clean path is in a read root and whose .. climbs from a link's target out of it", n.climbPast},
		{"ops through exactly 40 links that resolve", n.resolved40},
		{"ops through 41 links or a loop, not_found", n.loop41},
		{"allowed writes through a link that create a file (a dangling link's target, or a new file under a directory link)", n.createThrough},
	} {
		if c.got < 10 {
			t.Errorf("%s: %d in 2000 seeded scenarios, want at least 10", c.what, c.got)
		}
	}
	if n.withLinks > n.worlds*9/10 || n.withLinks < n.worlds/2 {
		t.Errorf("%d of %d worlds have links: want most, not all", n.withLinks, n.worlds)
	}
	for _, cl := range []attack.Class{attack.SymlinkEscape, attack.SymlinkParent, attack.SymlinkLoop} {
		if n.readThrough[cl] < 50 || n.writeThrough[cl] < 50 {
			t.Errorf("%s: %d reads and %d writes through a link, want at least 50 of each", cl, n.readThrough[cl], n.writeThrough[cl])
		}
	}
}

// isLinkTarget reports whether some link points at l: the start of a chain
// is none.
func isLinkTarget(links map[string]string, l string) bool {
	for k, t := range links {
		if target(k, t) == l {
			return true
		}
	}
	return false
}

// fileAt returns the content of the world's file at the canonical path p.
func fileAt(sc *scenario.Scenario, p string) (string, bool) {
	for _, f := range sc.World.Files {
		if spec.Canonical(f.Path) == p {
			return f.Data, true
		}
	}
	return "", false
}

// TestEveryRecipeReadAndWritten: every link recipe is planted, and ops of
// its class both read and write through it, so a sandbox that resolves
// only reads, or only writes, meets each shape. The rarest recipe, the
// chain of 41 links, is read or written through about once in 800
// scenarios each way: 6,000 expect seven of each.
func TestEveryRecipeReadAndWritten(t *testing.T) {
	var planted, reads, writes [64]int
	for i := range 6000 {
		sc := seeded(i)
		links := linkTable(sc)
		for _, l := range sc.World.Links {
			if r := recipeOf(l.Path); r != nil {
				planted[r.index]++
			}
		}
		for _, st := range sc.Steps {
			if st.Class < attack.SymlinkEscape || len(st.Op.Args) == 0 {
				continue
			}
			on, _ := linksOn(links, st.Op.Args[0])
			for _, l := range append(on, besideLinks(links, st.Op.Args[0])...) {
				r := recipeOf(l)
				if r == nil || r.class != st.Class {
					continue
				}
				switch st.Op.Kind {
				case core.OpRead:
					reads[r.index]++
				case core.OpWrite:
					writes[r.index]++
				}
			}
		}
	}
	for _, r := range linkRecipes {
		name := r.links[0].name
		if planted[r.index] == 0 || reads[r.index] == 0 || writes[r.index] == 0 {
			t.Errorf("recipe %s (%s): planted %d times, read through %d times, written through %d times; want all three",
				name, r.class, planted[r.index], reads[r.index], writes[r.index])
		}
	}
}

// TestSymlinkClassesReachKinds runs seeded scenarios on the reference and
// checks that each symlink class gets the verdicts it exists for — escapes
// are refused on the resolved path for reads and for writes, loops are
// not_found, new files under a parent link are refused — and the near
// misses that must stay allowed are.
func TestSymlinkClassesReachKinds(t *testing.T) {
	var kinds [attack.NumClasses][core.NumKinds]int
	for i := range 2000 {
		sc := seeded(i)
		sb := core.NewReference(must.Grant(sc.Grant), refworld.New(sc.World))
		for _, st := range sc.Steps {
			kinds[st.Class][sb.Run(st.Op).Kind]++
		}
	}
	for _, want := range []struct {
		cl   attack.Class
		kind core.Kind
	}{
		{attack.SymlinkEscape, core.FSReadDenied}, {attack.SymlinkEscape, core.FSWriteDenied},
		{attack.SymlinkEscape, core.OK}, {attack.SymlinkEscape, core.NotFound}, {attack.SymlinkEscape, core.PathTraversal},
		{attack.SymlinkParent, core.FSWriteDenied}, {attack.SymlinkParent, core.FSReadDenied}, {attack.SymlinkParent, core.OK},
		{attack.SymlinkLoop, core.NotFound}, {attack.SymlinkLoop, core.OK}, {attack.SymlinkLoop, core.FSReadDenied},
	} {
		if n := kinds[want.cl][want.kind]; n < 20 {
			t.Errorf("%s ops got %s %d times in 2000 scenarios, want at least 20", want.cl, want.kind, n)
		}
	}
}

// TestEncodedClimbsBack: the encoded class draws paths outside every root
// that, percent-decoded twice and cleaned, are under one, with no ".."
// as written: a sandbox that decodes twice before it checks lets them
// through, and acts outside if it opens the path decoded once.
func TestEncodedClimbsBack(t *testing.T) {
	src := NewSource(*seedFlag, 99)
	n := 0
	for i := range 300 {
		sc := seeded(i)
		for range 10 {
			op := Op(src, attack.Encoded, sc)
			if op.Kind != core.OpRead && op.Kind != core.OpWrite {
				continue
			}
			p := op.Args[0]
			once, err := url.PathUnescape(p)
			twice, err2 := url.PathUnescape(once)
			if err == nil && err2 == nil && !spec.HasTraversal(p) && !underAny(p, sc.Grant.FSRead) && underAny(path.Clean(twice), sc.Grant.FSRead) {
				n++
			}
		}
	}
	if n < 10 {
		t.Errorf("%d encoded ops in 3000 outside every read root and under one decoded twice, want at least 10", n)
	}
}

// TestForgedLines: the control class now and then puts a whole JSON-RPC
// response on a line of its own in a path a read or a write is asked, which
// a sandbox that echoes its arguments on its stdout passes to its door.
func TestForgedLines(t *testing.T) {
	src := NewSource(*seedFlag, 98)
	n := 0
	for i := range 300 {
		sc := seeded(i)
		for range 10 {
			op := Op(src, attack.ControlBytes, sc)
			if (op.Kind == core.OpRead || op.Kind == core.OpWrite) && strings.Contains(op.Args[0], forgedLine) {
				n++
			}
		}
	}
	if n < 10 {
		t.Errorf("%d control ops in 3000 with a forged response line in their path, want at least 10", n)
	}
}

// TestFinalLinkToALinkDrawn: ops an MCP server is asked name, as their
// last component, a link in a root whose target is another link that
// leads out of every root. A server that resolves the parent, reads the
// final link's target once and checks that (not where it leads) lets such
// an op out; the chain of two links is drawn as often as the classic
// escape, so a campaign of a few hundred checks meets it, which it did not
// when only the rare chain recipes had the shape.
func TestFinalLinkToALinkDrawn(t *testing.T) {
	const n, want = 3000, 100
	got, missing := 0, 0
	for i := range n {
		sc := realsut.AdaptOneList(seeded(i))
		if sc == nil {
			continue
		}
		escapes := false
		for _, op := range fsOps(sc) {
			if !oneHopEscapes(sc, op.Args[0]) {
				continue
			}
			escapes = true
			if end, _ := hops(linkTable(sc), spec.Canonical(op.Args[0])); op.Kind == core.OpRead {
				if _, ok := fileAt(sc, end); !ok {
					missing++
				}
			}
		}
		if escapes {
			got++
		}
	}
	t.Logf("%d of %d seeded scenarios an MCP server is asked end a path at a link to a link out", got, n)
	if missing > 0 {
		t.Errorf("%d reads through a link to a link out end at no file: a sandbox that lets them out reads nothing, and is convicted of its answer alone", missing)
	}
	if got < want {
		t.Errorf("%d of %d seeded scenarios, as an MCP server is asked them, name a final link whose target is a link out of every root; want at least %d", got, n, want)
	}
}

// oneHopEscapes reports whether p, under a root of sc, ends at a link
// whose target, read once from the parent resolved, is under a root too,
// while the path resolved to its end (no loop) lies under none.
func oneHopEscapes(sc *scenario.Scenario, p string) bool {
	links, roots := linkTable(sc), sc.Grant.FSRead
	c := spec.Canonical(p)
	if !underAny(c, roots) {
		return false
	}
	parent, _ := hops(links, path.Dir(c))
	last := path.Join(parent, path.Base(c))
	target, ok := links[last]
	if !ok {
		return false
	}
	once := path.Join(parent, target)
	if path.IsAbs(target) {
		once = path.Clean(target)
	}
	full, k := hops(links, c)
	return underAny(once, roots) && k <= spec.MaxLinks && !underAny(full, roots)
}

// TestLinkWritesLand: a write a recipe names through a link, at the link or
// at one name below it, that resolves out of the write roots, resolves
// into a directory the world holds (a file or a link below it), so that on
// a disk a sandbox that follows the link writes there, a confinement
// finding, and does not meet a missing directory and fail, convicted of
// its answer alone: an escape a stale cache makes once then passes as
// flaky. Writes that name missing directories further down (d-deep/a/b/new)
// are the recipes' own, for sandboxes that make parents.
func TestLinkWritesLand(t *testing.T) {
	missed := map[string]int{}
	for i := range 2000 {
		sc := seeded(i)
		links := linkTable(sc)
		for _, op := range fsOps(sc) {
			c := spec.Canonical(op.Args[0])
			on, _ := linksOn(links, c)
			if op.Kind != core.OpWrite || strings.Contains(op.Args[0], `\`) || len(on) != 1 || recipeOf(on[0]) == nil || strings.Count(c[len(on[0]):], "/") > 1 {
				continue
			}
			dst, k := hops(links, c)
			if dir := path.Dir(dst); k <= spec.MaxLinks && !underAny(dst, sc.Grant.FSWrite) && dir != "/" && !holdsDir(sc, dir) {
				missed[path.Base(on[0])+c[len(on[0]):]]++
			}
		}
	}
	for w, n := range missed {
		t.Errorf("a write through %s out of the write roots meets a directory the world does not hold, in %d scenarios", w, n)
	}
}

// holdsDir reports whether a file or a link of sc's world lies below the
// canonical directory d, so that a disk holds d.
func holdsDir(sc *scenario.Scenario, d string) bool {
	_, ok := dirAt(sc, d)
	return ok || slices.ContainsFunc(sc.World.Links, func(l scenario.Link) bool { return strings.HasPrefix(spec.Canonical(l.Path), d+"/") })
}
