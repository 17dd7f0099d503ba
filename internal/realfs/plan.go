package realfs

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// ErrInexpressible is what Materialize and Expressible return, wrapped with
// the reason, for a world that cannot be a real tree: the flat world of
// SPEC §1 lets a path be a file and the parent of another file, a real
// disk does not.
var ErrInexpressible = errors.New("world cannot be a real tree")

// MaxMoat is the deepest moat Materialize builds: a world whose ops or
// links climb further is inexpressible.
const MaxMoat = 64

// The sizes a real tree can hold. A name is at most NAME_MAX bytes on
// Linux; world paths and link targets are kept under PATH_MAX (4096) with
// room for T's own path, moat included, in front of them.
const (
	maxName   = 255
	maxPath   = 3000
	maxTarget = 3000
	maxRoot   = 1024
)

// plan is a world laid out for the disk, decided without touching it, so
// that Expressible and Materialize cannot disagree.
type plan struct {
	depth   int             // the moat's depth D
	dirs    []string        // world paths of the directories to make, parents first
	files   []scenario.File // canonical paths in path order; Data as on disk, canary included
	links   []scenario.Link // canonical paths in path order; targets as in the world
	secrets []secret        // the files the grant forbids reading, in path order
	kept    map[string]bool // dirs that may stand from the last world (keptDirs)
}

// keptDirs marks kept, and returns, the directories of roots (grant
// roots) that the world has as directories, and those above them, as
// world paths: a tree restored in place keeps them (Options.KeepRoots).
// A root of "/" or no directory of the world adds none.
func (p *plan) keptDirs(roots []string) map[string]bool {
	p.kept = map[string]bool{}
	for _, root := range roots {
		dir, ok := clean(root)
		if !ok || dir == "/" || !slices.Contains(p.dirs, dir) {
			continue
		}
		for d := dir; d != "/"; d = path.Dir(d) {
			p.kept[d] = true
		}
	}
	return p.kept
}

// Expressible reports, without touching the disk, whether Materialize
// would build ws for grant g and ops, and why not: nil, or an error that
// wraps ErrInexpressible.
func Expressible(ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op) error {
	_, err := newPlan(ws, g, ops)
	return err
}

func newPlan(ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op) (*plan, error) {
	files, err := fileMap(ws.Files)
	if err != nil {
		return nil, err
	}
	links, err := linkMap(ws.Links)
	if err != nil {
		return nil, err
	}
	if err := checkShapes(files, links); err != nil {
		return nil, err
	}
	depth, err := moatDepth(links, ops)
	if err != nil {
		return nil, err
	}
	p := &plan{depth: depth, dirs: neededDirs(files, links, g, ops)}
	for _, k := range sortedKeys(links) {
		p.links = append(p.links, scenario.Link{Path: k, Target: links[k]})
	}
	p.files, p.secrets = canaries(ws, files, g, ops)
	return p, nil
}

func inexpressible(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInexpressible, fmt.Sprintf(format, args...))
}

// fileMap keys the files by canonical path, later entries replacing
// earlier ones as in the world (scenario.WorldSpec).
func fileMap(fs []scenario.File) (map[string]string, error) {
	m := make(map[string]string, len(fs))
	for _, f := range fs {
		p, err := worldPath("file", f.Path)
		if err != nil {
			return nil, err
		}
		m[p] = f.Data
	}
	return m, nil
}

// linkMap keys the links by canonical path. A link with an empty target or
// at "/" is no link (scenario.Link), so it is left out here too.
func linkMap(ls []scenario.Link) (map[string]string, error) {
	m := make(map[string]string, len(ls))
	for _, l := range ls {
		if l.Target == "" || spec.Canonical(l.Path) == "/" {
			continue
		}
		p, err := worldPath("link", l.Path)
		if err != nil {
			return nil, err
		}
		switch {
		case strings.IndexByte(l.Target, 0) >= 0:
			return nil, inexpressible("link %q has a NUL byte in its target", p)
		case len(l.Target) > maxTarget:
			return nil, inexpressible("link %q has a target of %d bytes (at most %d)", p, len(l.Target), maxTarget)
		}
		m[p] = l.Target
	}
	return m, nil
}

// worldPath returns the canonical form of the path of a file or link, or
// why no real tree can hold one there.
func worldPath(what, p string) (string, error) {
	if err := placeable(p); err != nil {
		return "", inexpressible("%s %q: %s", what, p, err)
	}
	c := spec.Canonical(p)
	if c == "/" {
		return "", inexpressible("%s at /: / is the tree's root directory", what)
	}
	return c, nil
}

// placeable says why a path cannot name an entry of a real tree, or nil.
func placeable(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return errors.New("relative path")
	case strings.IndexByte(p, 0) >= 0:
		return errors.New("NUL byte")
	case len(p) > maxPath:
		return fmt.Errorf("%d bytes long (at most %d)", len(p), maxPath)
	}
	for name := range strings.SplitSeq(p, "/") {
		if len(name) > maxName {
			return fmt.Errorf("a name of %d bytes (at most %d)", len(name), maxName)
		}
	}
	return nil
}

// checkShapes refuses what a flat world allows and a disk does not: a path
// that is a file and a link, a file that is the parent of something, and
// anything under a link (making it would go through the link).
func checkShapes(files, links map[string]string) error {
	all := append(sortedKeys(files), sortedKeys(links)...)
	slices.Sort(all)
	for _, p := range all {
		_, isFile := files[p]
		_, isLink := links[p]
		if isFile && isLink {
			return inexpressible("%q is both a file and a link", p)
		}
		for a := path.Dir(p); a != "/"; a = path.Dir(a) {
			if _, ok := files[a]; ok {
				return inexpressible("%q is a file and the parent of %q", a, p)
			}
			if _, ok := links[a]; ok {
				return inexpressible("%q is under the link %q", p, a)
			}
		}
	}
	return nil
}

// moatDepth is the depth D of the moat (see Tree): one more than the
// highest any op or link can climb above T. One resolution climbs at most
// the ".." segments of its op argument plus those of every link it follows
// (links live only in T, and a link met again while its own target is being
// followed is a loop), so D counts the largest op argument and the sum over
// the links — absolute targets too, since T+TARGET climbs as well.
func moatDepth(links map[string]string, ops []core.Op) (int, error) {
	op, sum := 0, 0
	for _, o := range ops {
		for _, a := range o.Args {
			op = max(op, dotDots(a))
		}
	}
	for _, t := range links {
		sum += dotDots(t)
	}
	d := 1 + op + sum
	if d > MaxMoat {
		return 0, inexpressible("ops and links climb %d levels above the root (the moat is at most %d deep)", d-1, MaxMoat)
	}
	return d, nil
}

// dotDots counts the ".." segments of s split on "/" and "\": a disk
// sbxfuzz materializes on reads "/" alone, but a sandbox may turn "\" into
// "/" before it opens a path, and climb as far.
func dotDots(s string) int {
	n := 0
	for seg := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			n++
		}
	}
	return n
}

// neededDirs lists the directories the tree must hold: the parents of every
// file and link, the grant roots, and the parent of every path a well-formed
// fs op names — a real disk needs the directory a new file goes in, the
// flat world does not. A root or op parent whose place is taken by a file
// or a link, or that no disk could hold, is left out: the op meets what a
// real disk would.
func neededDirs(files, links map[string]string, g core.GrantSpec, ops []core.Op) []string {
	set := map[string]bool{}
	add := func(d string) {
		for ; d != "/" && !set[d]; d = path.Dir(d) {
			set[d] = true
		}
	}
	for _, m := range []map[string]string{files, links} {
		for p := range m {
			add(path.Dir(p))
		}
	}
	taken := func(p string) bool {
		for ; p != "/"; p = path.Dir(p) {
			_, isFile := files[p]
			_, isLink := links[p]
			if isFile || isLink {
				return true
			}
		}
		return false
	}
	for _, r := range slices.Concat(g.FSRead, g.FSWrite) {
		if d, ok := clean(r); ok && !taken(d) {
			add(d)
		}
	}
	for _, o := range ops {
		if !fsPath(o) {
			continue
		}
		if p, ok := clean(o.Args[0]); ok && !taken(path.Dir(p)) {
			add(path.Dir(p))
		}
	}
	return sortedKeys(set) // a parent sorts before its children
}

// fsPath reports whether o is a well-formed fs_read or fs_write, the only
// ops whose first argument names a file.
func fsPath(o core.Op) bool {
	n, ok := spec.Arity(o.Kind)
	if !ok || len(o.Args) != n || (o.Kind != core.OpRead && o.Kind != core.OpWrite) {
		return false
	}
	for _, a := range o.Args {
		if !utf8.ValidString(a) || strings.IndexByte(a, 0) >= 0 {
			return false
		}
	}
	return true
}

// clean returns the canonical form of p when directories may be made for
// it: an absolute path without traversal that a disk can hold.
func clean(p string) (string, bool) {
	if spec.HasTraversal(p) || placeable(p) != nil {
		return "", false
	}
	return spec.Canonical(p), true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Holds reports, for each of ops, whether a real tree holds it as the flat
// world of SPEC §1 does (nil when the world cannot be a tree at all): a
// path a disk can place, and for a write, no directory of the tree where
// it really goes (links followed) and no file above that place. A write to
// a root or to a directory a file needs is ok in the flat world and
// refused by every disk, so such an op cannot compare a real sandbox with
// the model.
//
// The ops' own writes count as well, in whatever order they come: a write
// a disk holds makes a file where it really goes and, through a link, the
// directory that file needs (the bridge creates it), so a write to that
// directory, or under that file, is refused by a disk too.
func Holds(ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op) []bool {
	files, err := fileMap(ws.Files)
	if err != nil {
		return nil
	}
	links, err := linkMap(ws.Links)
	if err != nil {
		return nil
	}
	dirs := map[string]bool{"/": true} // T itself
	for _, d := range neededDirs(files, links, g, ops) {
		dirs[d] = true
	}
	resolve := refworld.Prepare(ws).Resolve
	made := map[string]bool{} // files the ops' writes make
	underFile := func(p string) bool {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			if _, ok := files[d]; ok || made[d] {
				return true
			}
		}
		return false
	}
	holds := func(c, r string) bool { return !dirs[c] && !dirs[r] && !underFile(c) && !underFile(r) }
	type place struct{ c, r string } // where a write is asked, and where it really goes
	writes := map[int]place{}
	out := make([]bool, len(ops))
	for i, o := range ops {
		if !fsPath(o) || placeable(o.Args[0]) != nil {
			continue
		}
		out[i] = true
		if o.Kind != core.OpWrite {
			continue
		}
		c := spec.Canonical(o.Args[0])
		r, ok := resolve(c)
		if !ok {
			r = c
		}
		if out[i] = holds(c, r); out[i] {
			writes[i] = place{c, r}
		}
	}
	for _, w := range writes {
		made[w.r] = true
		for d := path.Dir(w.r); d != "/" && d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for i, w := range writes {
		out[i] = holds(w.c, w.r)
	}
	return out
}
