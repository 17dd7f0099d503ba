package generators

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// A linkRecipe is one shape of SPEC §13 links, planted in a root: the links
// themselves (the entry first), the class whose ops use them, and the paths
// those ops read and write, relative to the entry link's directory. The
// world gen plants recipes; linkOp finds them again by the entry's name, so
// that Op needs nothing but the scenario. Every recipe has reads and
// writes: a sandbox may resolve one and not the other.
type linkRecipe struct {
	class  attack.Class
	index  int // in linkRecipes
	links  []linkSpec
	reads  []string
	writes []string
	// keep, when set, is a file the recipe adds to the world where its
	// links lead, so that a disk holds the directory its reads and writes
	// reach: a disk has no directory the world has no file in, and a write
	// a sandbox lets out through the link would meet none, fail, and
	// convict it of its answer alone, never of the write (an escape made
	// once, from a stale cache, then passes as flaky).
	keep func(x *rootInfo) string
	// beside says that reads and writes name paths beside the links, not
	// through them: a sandbox's own rewriting of a path (a temporary or a
	// backup name, a Unicode normalization) is what leads through them.
	beside bool
}

// keepTmp keeps /tmp/x, where the recipes that lead to /tmp read and
// write; keepShop and keepTwo keep the files of the prefix siblings
// /workshop and /work2 where those that lead there do; keepCron and
// keepCache keep a file in /etc/cron.d and /data/cache, where a dangling
// link and a directory link lead; keepSub keeps one in the directory a
// link inside the root leads to, out of the write roots when the link is
// planted in a read root; keepShadow keeps the file the two-link escape
// ends at, so that a read a sandbox lets out there finds it.
func keepTmp(*rootInfo) string    { return "/tmp/x" }
func keepShop(x *rootInfo) string { return x.siblings[0] }
func keepTwo(x *rootInfo) string  { return x.siblings[2] }
func keepCron(*rootInfo) string   { return "/etc/cron.d/keep" }
func keepCache(*rootInfo) string  { return dataCacheBase + "/keep" }
func keepSub(x *rootInfo) string  { return x.subKept }
func keepShadow(*rootInfo) string { return "/etc/shadow" }

// A linkSpec is one link of a recipe. Its path is the root's base, "/" and
// name, or at(x) when at is set; its target is target(x), both computed
// once per root at init, or other(o) at planting time when it names the
// other root o (then it must return a string o holds already, so planting
// allocates nothing).
type linkSpec struct {
	name   string
	at     func(x *rootInfo) string
	target func(x *rootInfo) string
	other  func(o *rootInfo) string
}

// to is a linkSpec whose target is the same for every root.
func to(name, target string) linkSpec {
	return linkSpec{name: name, target: func(*rootInfo) string { return target }}
}

// ups climbs from a root's base to "/" and one step more, which stays at
// "/": "../../" for /work.
func ups(x *rootInfo) string { return strings.Repeat("../", strings.Count(x.base, "/")+1) }

// lastName is the last component of a base: "work" for /work.
func lastName(x *rootInfo) string { return x.base[strings.LastIndexByte(x.base, '/')+1:] }

// here40 and friends are k components "here/", each following a link to
// "." once: 40 resolve, 41 are a loop (spec.MaxLinks).
var (
	here39 = strings.Repeat("here/", spec.MaxLinks-1)
	here40 = strings.Repeat("here/", spec.MaxLinks)
	here41 = strings.Repeat("here/", spec.MaxLinks+1)
)

// escapeRecipes are links inside a root that lead out of it — to files and
// directories outside every root, to "/", to prefix siblings (absolute, or
// relative through ".."), through a chain — and near misses that must stay
// allowed or denied as they are: a link to the other root, links inside
// the root (one dangling, so a write creates its target), and a link at a
// prefix sibling that points back in.
var escapeRecipes = []linkRecipe{
	{links: []linkSpec{to("ln-passwd", "/etc/passwd")}, reads: []string{"ln-passwd"}, writes: []string{"ln-passwd"}},
	{links: []linkSpec{to("ln-etc", "/etc")},
		reads: []string{"ln-etc/passwd", "ln-etc/shadow", "ln-etc"}, writes: []string{"ln-etc/passwd", "ln-etc/profile"}},
	{links: []linkSpec{to("ln-root", "/")},
		reads:  []string{"ln-root/etc/passwd", "ln-root", "ln-root/proc/self/environ", "ln-root/work/data.txt"},
		writes: []string{"ln-root/etc/passwd", "ln-root/tmp/x"}, keep: keepTmp},
	{links: []linkSpec{{name: "ln-sib", target: func(x *rootInfo) string { return x.base + "shop" }}},
		reads: []string{"ln-sib/secret"}, writes: []string{"ln-sib/secret"}, keep: keepShop},
	{links: []linkSpec{{name: "ln-sibrel", target: func(x *rootInfo) string { return "../" + lastName(x) + "shop/secret" }}},
		reads: []string{"ln-sibrel"}, writes: []string{"ln-sibrel"}, keep: keepShop},
	{links: []linkSpec{{name: "ln-up", target: func(x *rootInfo) string { return ups(x) + "etc/passwd" }}},
		reads: []string{"ln-up"}, writes: []string{"ln-up"}},
	{links: []linkSpec{{name: "ln-other", other: func(o *rootInfo) string { return o.files[0] }}},
		reads: []string{"ln-other"}, writes: []string{"ln-other"}},
	{links: []linkSpec{to("ln-hop", "ln-hop2"), to("ln-hop2", "/etc/shadow")},
		reads: []string{"ln-hop"}, writes: []string{"ln-hop"}, keep: keepShadow},
	{links: []linkSpec{to("ln-dangle", "/etc/cron.d/sbx")}, reads: []string{"ln-dangle"}, writes: []string{"ln-dangle"}, keep: keepCron},
	{links: []linkSpec{to("ln-in", "data.txt")}, reads: []string{"ln-in"}, writes: []string{"ln-in"}},
	{links: []linkSpec{to("ln-new", "fresh.txt")}, reads: []string{"ln-new"}, writes: []string{"ln-new"}},
	{links: []linkSpec{{name: "ln-back", at: func(x *rootInfo) string { return x.base + "shop/ln-back" },
		target: func(x *rootInfo) string { return x.files[0] }}},
		reads: []string{"ln-back"}, writes: []string{"ln-back"}},
	// Links where a sandbox writes beside the file it is asked to: a
	// temporary file renamed over it, a backup of what it overwrites.
	{links: []linkSpec{to("data.txt.tmp", "/etc/passwd"), to("data.txt.bak", "/etc/passwd"), to("data.txt~", "/etc/passwd"), to("fresh.txt.tmp", "/etc/passwd")},
		reads: []string{"data.txt.tmp"}, writes: []string{"data.txt", "fresh.txt", "data.txt.bak"}, beside: true},
	// Links whose names are another Unicode form of the op's: a sandbox
	// that normalizes a path after its check (NFC, NFD) opens the link.
	{links: []linkSpec{to("ln-caf\u00e9", "/etc/passwd"), to("ln-nfd-cafe\u0301", "/etc/shadow"), to("ln-\u00c5", "/etc/passwd")},
		reads: []string{"ln-cafe\u0301", "ln-nfd-caf\u00e9", "ln-\u212b", "ln-caf\u00e9"}, writes: []string{"ln-cafe\u0301", "ln-caf\u00e9"}, keep: keepShadow, beside: true},
}

// parentRecipes are directory links under which ops name new files: out of
// the root to /etc, "/", a directory reached by climbing with "..", a
// prefix sibling of the root, through a chain, or to another root; and in
// it, which must stay allowed.
var parentRecipes = []linkRecipe{
	{links: []linkSpec{to("d", "/etc")},
		reads: []string{"d/passwd"}, writes: []string{"d/new", "d/cron.d/sbx", "d/passwd"}},
	{links: []linkSpec{to("d-root", "/")},
		reads: []string{"d-root/etc/shadow"}, writes: []string{"d-root/etc/new", "d-root/tmp/x"}, keep: keepTmp},
	{links: []linkSpec{{name: "d-up", target: func(x *rootInfo) string { return ups(x) + "tmp" }}},
		reads: []string{"d-up/x"}, writes: []string{"d-up/new"}, keep: keepTmp},
	{links: []linkSpec{{name: "d-sib", target: func(x *rootInfo) string { return x.base + "2" }}},
		reads: []string{"d-sib/secret"}, writes: []string{"d-sib/new"}, keep: keepTwo},
	{links: []linkSpec{to("d-chain", "d-hop"), to("d-hop", "/etc")},
		reads: []string{"d-chain/passwd"}, writes: []string{"d-chain/new"}},
	{links: []linkSpec{{name: "d-read", other: func(o *rootInfo) string { return o.base }}},
		reads: []string{"d-read/data.txt"}, writes: []string{"d-read/new", "d-read/data.txt"}},
	{links: []linkSpec{to("d-other", dataCacheBase)}, reads: []string{"d-other/new"}, writes: []string{"d-other/new"}, keep: keepCache},
	{links: []linkSpec{to("d-deep", "/tmp")}, reads: []string{"d-deep/a/b/new"}, writes: []string{"d-deep/a/b/new"}},
	{links: []linkSpec{to("d-in", "sub")}, reads: []string{"d-in/new"}, writes: []string{"d-in/new"}, keep: keepSub},
}

// loopRecipes are links that never resolve — a link to itself (relative and
// absolute), a 2-cycle, a link through itself — and a directory link to "."
// followed 39, 40 and 41 times, or 39 times and then a link out to /etc
// (the 40th hop, which resolves, and out of the root).
var loopRecipes = []linkRecipe{
	{links: []linkSpec{to("loop", "loop")}, reads: []string{"loop", "loop/x"}, writes: []string{"loop"}},
	{links: []linkSpec{{name: "loop-abs", target: func(x *rootInfo) string { return x.base + "/loop-abs" }}},
		reads: []string{"loop-abs"}, writes: []string{"loop-abs/x"}},
	{links: []linkSpec{to("cyc-a", "cyc-b"), {name: "cyc-b", target: func(x *rootInfo) string { return x.base + "/cyc-a" }}},
		reads: []string{"cyc-a", "cyc-b/x"}, writes: []string{"cyc-a", "cyc-b"}},
	{links: []linkSpec{to("nest", "nest/x")}, reads: []string{"nest"}, writes: []string{"nest/y"}},
	{links: []linkSpec{to("here", "."), to("here-etc", "/etc")},
		reads:  []string{here40 + "data.txt", here41 + "data.txt", here39 + "data.txt", here39 + "here-etc/passwd"},
		writes: []string{here40 + "new", here41 + "new", here39 + "here-etc/new"}},
}

// outRecipes are dangling links planted in a write root whose target lies
// outside every root and does not exist yet, in a directory that does
// (/etc, where /etc/passwd always is): a write through one must be denied,
// and a sandbox that checks the link's path, or its parent, and lets the
// disk follow the link creates the target outside (a known open bug of a
// popular server). The target is absolute, or relative climbing exactly
// to "/", so that a real tree holds it.
var outRecipes = []linkRecipe{
	{links: []linkSpec{to("ln-out", "/etc/sbx-out")}, reads: []string{"ln-out"}, writes: []string{"ln-out"}},
	{links: []linkSpec{{name: "ln-outrel", target: func(x *rootInfo) string {
		return strings.Repeat("../", strings.Count(x.base, "/")) + "etc/sbx-out"
	}}}, reads: []string{"ln-outrel"}, writes: []string{"ln-outrel"}},
}

// chainRecipes are chains of spec.MaxLinks+1 links, planted in few worlds:
// from the first, resolving follows one link too many (not_found); from
// the second, exactly spec.MaxLinks, ending at a file in the root or at
// /etc/passwd.
var chainRecipes = []linkRecipe{chain("chain", "data.txt"), chain("chainx", "/etc/passwd")}

func chain(name, end string) linkRecipe {
	const n = spec.MaxLinks + 1
	r := linkRecipe{class: attack.SymlinkLoop, links: make([]linkSpec, n),
		reads: []string{name + "1", name + "2", name + "3"}, writes: []string{name + "1", name + "2"}}
	for i := range n {
		target := end
		if i < n-1 {
			target = name + strconv.Itoa(i+2)
		}
		r.links[i] = to(name+strconv.Itoa(i+1), target)
	}
	return r
}

// linkRecipes are every recipe, indexed as rootInfo.linkPaths is:
// escapes, parents, loops, chains, then dangling links out.
var linkRecipes = func() []*linkRecipe {
	var out []*linkRecipe
	for _, t := range []struct {
		cl attack.Class
		rs []linkRecipe
	}{{attack.SymlinkEscape, escapeRecipes}, {attack.SymlinkParent, parentRecipes}, {attack.SymlinkLoop, loopRecipes}, {attack.SymlinkLoop, chainRecipes}, {attack.SymlinkEscape, outRecipes}} {
		for i := range t.rs {
			t.rs[i].class, t.rs[i].index = t.cl, len(out)
			out = append(out, &t.rs[i])
		}
	}
	return out
}()

// recipeByName finds a recipe by the name of its entry link.
var recipeByName = func() map[string]*linkRecipe {
	m := make(map[string]*linkRecipe, len(linkRecipes))
	for _, r := range linkRecipes {
		if m[r.links[0].name] != nil {
			panic("generators: two link recipes named " + r.links[0].name)
		}
		m[r.links[0].name] = r
	}
	return m
}()

// rootLinks are a root's links, computed once: per recipe, per link, its
// path and (unless it names the other root) its target.
type rootLinks [][]scenario.Link

// rootEntries are the entries of a root's link recipes, computed once,
// per recipe, as appendLinkEntries finds them in a world they are planted in.
func rootEntries(links rootLinks) []linkEntry {
	out := make([]linkEntry, len(links))
	for i, ls := range links {
		p := ls[0].Path
		out[i] = linkEntry{linkRecipes[i], p[:max(strings.LastIndexByte(p, '/'), 0)]}
	}
	return out
}

func newRootLinks(x *rootInfo) rootLinks {
	out := make(rootLinks, len(linkRecipes))
	for i, r := range linkRecipes {
		out[i] = make([]scenario.Link, len(r.links))
		for j, s := range r.links {
			l := &out[i][j]
			if l.Path = x.base + "/" + s.name; s.at != nil {
				l.Path = s.at(x)
			}
			if s.target != nil {
				l.Target = s.target(x)
			}
		}
	}
	return out
}

// hopRecipe is the index in escapeRecipes of the chain of two links out
// (ln-hop to ln-hop2 to /etc/shadow).
var hopRecipe = slices.IndexFunc(escapeRecipes, func(r linkRecipe) bool { return r.links[0].name == "ln-hop" })

// drawRecipe draws the index of a recipe of rs: the first, its table's
// classic shape, three times as often as each other one, and among the
// escapes the chain of two links as often as the classic. Its entry's
// target is a link inside the root: a sandbox that resolves the parent,
// reads a final link's target once and checks that, not where it leads,
// lets it out, and the chains one link past SPEC §13's limit, the only
// other shape that ends so, are too rare for a short campaign to meet.
func drawRecipe(src Source, rs []linkRecipe) int {
	extra := 2
	if &rs[0] == &escapeRecipes[0] {
		extra = 4
	}
	switch k := src.Intn(len(rs) + extra); {
	case k < len(rs):
		return k
	case k < len(rs)+2:
		return 0
	}
	return hopRecipe
}

// links plants symbolic links in three worlds in four (none at draw 0),
// and in every world whose root is a link (that link first): escape
// recipes in a read root (of two, one in each when two are drawn) and the
// write root, a dangling link out
// of the write root, parent recipes in
// the write root and now and then in the read root, loop recipes in
// either, and, in one of these worlds in six, a chain of 41 links. The
// first recipe of each table, its classic shape, is drawn three times as
// often as each other one, and the escape through two links as often
// (drawRecipe). A recipe that points at "the other root" points
// from the read root to the write root, and back.
func (b *builder) links() {
	src := b.src
	if linkWeights.draw(src) == 0 && b.rootLink == nil {
		return
	}
	var picks [11]struct { // at most 3 escape, 1 out, 3 parent, 2 loop and 1 chain recipes
		x, o *rootInfo
		k    int
	}
	n, size := 0, 0
	plant := func(x, o *rootInfo, rs []linkRecipe) {
		r := &rs[drawRecipe(src, rs)]
		picks[n].x, picks[n].o, picks[n].k = x, o, r.index
		n, size = n+1, size+len(r.links)
	}
	r, w := b.readHost, b.writeHost
	for k := 1 + src.Intn(2); k > 0; k-- {
		if k == 2 && b.readOther != nil {
			plant(b.readOther, w, escapeRecipes)
		} else {
			plant(r, w, escapeRecipes)
		}
	}
	if oneIn(src, 2) {
		plant(w, r, escapeRecipes)
	}
	plant(w, r, outRecipes)
	for k := 1 + src.Intn(2); k > 0; k-- {
		plant(w, r, parentRecipes)
	}
	if oneIn(src, 3) {
		plant(r, w, parentRecipes)
	}
	for k := 1 + src.Intn(2); k > 0; k-- {
		if oneIn(src, 3) {
			plant(w, r, loopRecipes)
		} else {
			plant(r, w, loopRecipes)
		}
	}
	if oneIn(src, 6) {
		if oneIn(src, 3) {
			plant(w, r, chainRecipes)
		} else {
			plant(r, w, chainRecipes)
		}
	}
	if b.rootLink != nil {
		size++
	}
	b.w.Links = b.d.links.open(size)
	if b.rootLink != nil {
		b.w.Links = append(b.w.Links, *b.rootLink)
	}
	for _, p := range picks[:n] {
		if keep := linkRecipes[p.k].keep; keep != nil {
			b.keepFile(keep(p.x))
		}
		b.d.record.entries = append(b.d.record.entries, p.x.entries[p.k])
		for j, l := range p.x.links[p.k] {
			if s := linkRecipes[p.k].links[j]; s.other != nil {
				l.Target = s.other(p.o)
			}
			b.w.Links = append(b.w.Links, l)
		}
	}
	b.w.Links = b.d.links.close(b.w.Links)
}

// keepFile adds a file at p unless the world has one there already (a
// prefix sibling's, drawn with the root; another recipe's).
func (b *builder) keepFile(p string) {
	if !slices.ContainsFunc(b.w.Files, func(f scenario.File) bool { return f.Path == p }) {
		b.file(p, "kept")
	}
}
