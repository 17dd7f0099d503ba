package generators

import (
	"path"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// linkOp is an op of a symlink class: a read or a write through one of the
// world's links planted for that class (found by the name of a recipe's
// entry link), along a path its recipe names — the link itself, a file
// below a directory link, a new file under it, 40 or 41 hops. Now and then
// the path is respelled with dot segments, a doubled or trailing slash, or
// a ".." that makes it a traversal, refused before anything is resolved
// (climbPast's among them). In a world without such a link it names the
// same paths below a root, where no link is.
func linkOp(src Source, sc *scenario.Scenario, cl attack.Class) core.Op {
	r, dir, ok := findLink(src, sc, cl)
	var writes bool
	switch {
	case cl == attack.SymlinkParent:
		writes = src.Intn(4) != 0
	case ok && underWrite(src, sc, dir):
		writes = oneIn(src, 2)
	default:
		writes = oneIn(src, 4)
	}
	if !ok {
		rs := classRecipes(cl)
		r = &rs[src.Intn(len(rs))]
		if writes {
			dir = writeBase(src, sc)
		} else {
			dir = readBase(src, sc)
		}
	}
	var p string
	if writes {
		p = pick(src, r.writes)
	} else {
		p = pick(src, r.reads)
	}
	switch {
	case oneIn(src, 5):
		t := pick(src, linkTwists)
		p = cat(src, dir, t.sep, p, t.suffix)
	case ok && oneIn(src, 6):
		p = cat(src, dir, "/", climbPast(sc, dir, p))
	case oneIn(src, 12):
		p = cat(src, dir, "/", p, pick(src, trimmedTails))
	default:
		p = cat(src, dir, "/", p)
	}
	if writes {
		return write(src, p, pick(src, writeData))
	}
	return read(src, p)
}

// climbPast respells p, a path below the directory link at its first
// name, to climb out of the directory the link leads to and back down into
// it: the link, "..", the last name of the link's target, then the rest of
// p ("d/../etc/passwd" for "d/passwd", d a link to /etc). The kernel
// reaches the file p names; Clean, which reads ".." before the link is
// looked at, keeps the path in the root ("/work/etc/passwd"): a sandbox
// that checks the clean path and opens the raw one acts outside. p is
// returned as it is when it names no file below a link of sc at dir, or
// the link's target ends in "." or "..".
func climbPast(sc *scenario.Scenario, dir, p string) string {
	link, rest, _ := strings.Cut(p, "/")
	i := slices.IndexFunc(sc.World.Links, func(l scenario.Link) bool { return l.Path == dir+"/"+link })
	if rest == "" || i < 0 {
		return p
	}
	base := path.Base(sc.World.Links[i].Target)
	switch base {
	case ".", "..":
		return p
	case "/":
		return link + "/../" + rest
	}
	return link + "/../" + base + "/" + rest
}

// linkTwists respell a path through a link into one that Clean (reading
// backslashes as slashes) makes the same again: dot segments and doubled
// or trailing slashes, or (the last three) a traversal, which must be
// refused before the link is looked at.
var linkTwists = []struct{ sep, suffix string }{
	{"/./", ""}, {"//", ""}, {"/", "/"}, {"/", "/."}, {"/.//./", ""},
	{"/sub/../", ""}, {"/", "/x/.."}, {`/sub\..\`, ""},
}

// trimmedTails end a path through a link with what a sandbox may strip
// from a path's end before it opens it: a sandbox that checks the path as
// asked, then trims it, opens the link.
var trimmedTails = []string{" ", "\t", "\n", "'"}

// findLink returns the recipe of a link of the world planted for class cl,
// chosen at random, and the directory of its entry link; false when the
// world has none.
func findLink(src Source, sc *scenario.Scenario, cl attack.Class) (*linkRecipe, string, bool) {
	var es []linkEntry
	if f := factsOf(src, sc); f != nil {
		es = f.linkEntries(cl)
	} else {
		var buf [maxLinkEntries]linkEntry
		es = appendLinkEntries(buf[:0], sc, cl)
	}
	if len(es) == 0 {
		return nil, "", false
	}
	e := es[src.Intn(len(es))]
	return e.recipe, e.dir, true
}

// A linkEntry is the entry link of a recipe planted in the world: the
// recipe, and the link's directory.
type linkEntry struct {
	recipe *linkRecipe
	dir    string
}

// maxLinkEntries bounds the entries findLink chooses from.
const maxLinkEntries = 16

// appendLinkEntries appends the entries of the recipes of class cl planted
// in sc's world, in world order, at most maxLinkEntries. A recipe's links
// are planted together, entry first, so the scan skips the rest of a
// recipe it recognized: the 40 links after a chain's first cost nothing.
func appendLinkEntries(out []linkEntry, sc *scenario.Scenario, cl attack.Class) []linkEntry {
	links := sc.World.Links
	for i, n := 0, 0; i < len(links); i++ {
		p := links[i].Path
		r := recipeOf(p)
		if r == nil {
			continue
		}
		if r.class == cl && n < maxLinkEntries {
			out = append(out, linkEntry{r, p[:max(strings.LastIndexByte(p, '/'), 0)]})
			n++
		}
		i += len(r.links) - 1
	}
	return out
}

// appendPlanted is appendLinkEntries from the entries of the recipes the
// world gen planted (worldRecord.entries) instead of from the world's
// links: the world's links are those recipes' links, in the same order,
// each recipe's entry first, so the entries of class cl are the same.
func appendPlanted(out, planted []linkEntry, cl attack.Class) []linkEntry {
	n := 0
	for _, e := range planted {
		if e.recipe.class == cl && n < maxLinkEntries {
			out = append(out, e)
			n++
		}
	}
	return out
}

// recipeOf is the recipe whose entry link is named as p's last component,
// or nil.
func recipeOf(p string) *linkRecipe { return recipeByName[p[strings.LastIndexByte(p, '/')+1:]] }

// classRecipes are the recipes of a symlink class, chains aside.
func classRecipes(cl attack.Class) []linkRecipe {
	switch cl {
	case attack.SymlinkParent:
		return parentRecipes
	case attack.SymlinkLoop:
		return loopRecipes
	}
	return escapeRecipes
}
