package realfs

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Tree is a world materialized on the real disk (SPEC §13). Its base
// directory holds a moat of empty directories, base/m/m/…/m/t, D levels of
// "m" deep, and the world's "/" is T = base/m/…/m/t. The moat is there
// because a vulnerable sandbox that climbs out of T with ".." — in an op's
// path or through a link's target — must land somewhere Observe sees, never
// in the real machine: D is one more than the most any op or link of the
// scenario can climb, so every such climb stays below base.
//
// A Tree is not safe for concurrent use with the sandbox it is handed to:
// observe it between ops. The zero Tree is not usable; build one with
// Materialize.
type Tree struct {
	base     string
	root     string // T
	depth    int    // D
	chain    string // T's path below base: "/m" D times, then "/t"
	secrets  []secret
	relLinks bool            // absolute link targets are written relative to the link's directory
	stood    map[string]bool // the kept directories that stood (Kept)
	made     fs.FileInfo     // T as build made it (OpenRoot)
	own      []string        // names of the sandbox's own directories (Options.Own)
	roots    map[string]bool // the grant's roots, cleaned, where they stand
}

// Materialize builds world ws, for a sandbox holding grant g that will run
// ops, as a real tree in dir, which it creates or empties first. Files are
// mode 0644 and directories 0755 whatever the umask; every file the grant
// forbids reading carries a canary (see Leak). The same arguments give the
// same tree, byte for byte. An error wraps ErrInexpressible when the world
// cannot be a real tree (see Expressible); any other is the disk's, or
// Supported's on a system without a POSIX disk.
func Materialize(dir string, ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op) (*Tree, error) {
	return MaterializeWith(dir, ws, g, ops, Options{})
}

// MaterializeRelative is Materialize, but an absolute link target is
// written relative to the link's directory ("/etc/x" from /work/l is
// "../etc/x"), which reaches the same place: for sandboxes, such as Go's
// os.Root, that refuse every absolute link.
func MaterializeRelative(dir string, ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op) (*Tree, error) {
	return MaterializeWith(dir, ws, g, ops, Options{RelativeLinks: true})
}

// Options says how MaterializeWith lays a world out on the disk.
type Options struct {
	// RelativeLinks writes absolute link targets relative to the link's
	// directory (MaterializeRelative).
	RelativeLinks bool
	// MinDepth is the least depth of the moat (at most MaxMoat): the
	// trees of worlds that climb less all have T at the same path in the
	// same dir, so a sandbox told of their directories once (a server's
	// arguments) serves one world after another.
	MinDepth int
	// KeepRoots keeps the directories of the grant's roots (fs_read and
	// fs_write), and those above them, when a tree is restored in place
	// for a world that has them too: emptied, not made anew, so that a
	// server working in one (its working directory), holding one open, or
	// confined to one by the kernel (a bind mount, a Landlock rule, which
	// hold the directory, not its path) keeps it.
	KeepRoots bool
	// Own are the names of directories a sandbox keeps for itself in its
	// directories: one so named in a grant root (not a link) is left where
	// it stands by a restore that keeps the root, and Observe does not
	// look into it.
	Own []string
}

// MaterializeWith is Materialize laid out as o says. A dir that holds a
// tree of the same moat depth is restored in place: the moat's
// directories and T stay, and only what lies beside them in the moat and
// everything in T is removed before the world is written. dir is the
// caller's: a link in its path is followed, once, before the tree is
// built (see MaterializeIn for a directory a sandbox may tamper with).
func MaterializeWith(dir string, ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op, o Options) (*Tree, error) {
	if err := Supported(); err != nil {
		return nil, fmt.Errorf("materialize in %s: %w", dir, err)
	}
	if err := Expressible(ws, g, ops); err != nil {
		return nil, err // before dir is made
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, err
	}
	parent, err := os.OpenRoot(filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	return MaterializeIn(parent, filepath.Base(abs), ws, g, ops, o)
}

// MaterializeIn is MaterializeWith for the directory name in parent,
// which must have been opened at an absolute path with no link in it.
// Everything the harness does there goes through parent and the
// directories below it, each opened as the very directory the harness
// looked at: a link (or a named pipe, a file) a sandbox put at name or in
// the moat, even while the tree is being emptied, is never followed, so
// the harness removes, opens and writes nothing outside parent, and is
// not left waiting.
func MaterializeIn(parent *os.Root, name string, ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op, o Options) (*Tree, error) {
	if err := Supported(); err != nil {
		return nil, fmt.Errorf("materialize in %s: %w", name, err)
	}
	base := filepath.Join(parent.Name(), name)
	if !filepath.IsAbs(parent.Name()) || name != filepath.Base(name) || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("materialize in %s: want a directory's own name in a root opened at an absolute path", base)
	}
	p, err := newPlan(ws, g, ops)
	if err != nil {
		return nil, err
	}
	p.depth = max(p.depth, min(o.MinDepth, MaxMoat))
	var keep map[string]bool
	if o.KeepRoots {
		keep = p.keptDirs(slices.Concat(g.FSRead, g.FSWrite))
	}
	t := &Tree{base: base, depth: p.depth, secrets: p.secrets, relLinks: o.RelativeLinks, own: o.Own, roots: map[string]bool{}}
	for _, r := range slices.Concat(g.FSRead, g.FSWrite) {
		if c, ok := clean(r); ok {
			t.roots[c] = true
		}
	}
	t.chain = strings.Repeat("/m", p.depth) + "/t"
	t.root = base + t.chain
	if len(t.root) > maxRoot {
		return nil, fmt.Errorf("materialize in %s: the path is too long for a tree's root", base)
	}
	if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("materialize in %s: %w", base, err)
	}
	b, err := openDir(parent, name, parent.Name())
	if err != nil {
		return nil, fmt.Errorf("materialize in %s: %w", base, err)
	}
	defer b.Close()
	r, stood, err := chainRoot(b, base, p.depth, keep, t.isOwn)
	if err != nil {
		return nil, fmt.Errorf("materialize in %s: %w%s", base, err, changedUnder(err))
	}
	defer r.Close()
	t.stood = stood
	if t.made, err = r.Stat("."); err != nil {
		return nil, fmt.Errorf("materialize in %s: %w", base, err)
	}
	if err := t.build(r, p); err != nil {
		return nil, fmt.Errorf("materialize in %s: %w%s", base, err, changedUnder(err))
	}
	return t, nil
}

// changedUnder says of an error met rebuilding a tree in place that the
// tree changed while the harness was at it (InTheWay), where the error
// does not say so already.
func changedUnder(err error) string {
	if errors.Is(err, errReplaced) || !InTheWay(err) {
		return ""
	}
	return " (the tree changed while the harness rebuilt it: a sandbox still at work in it, or one that put a link there)"
}

// InTheWay reports whether err, of the harness's own work in a tree
// (os.Root's), is of something a sandbox put in its way there: a name
// gone or there already, a file where a directory goes or the other way
// round, a directory not empty or shut, a link (os.Root refuses one that
// leads out), not of the disk failing.
func InTheWay(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENOTEMPTY) ||
		errors.Is(err, syscall.ELOOP) ||
		strings.Contains(err.Error(), "path escapes from parent") // os.Root's refusal of a link out, unexported
}

// chainRoot empties base, at path at, of everything but the chain of a
// tree of moat depth d, base/m/…/m/t, making the levels that are missing,
// and opens T through it a level at a time; T it empties but for the
// directories keep names (world paths: /srv and /srv/app for a root
// /srv/app), whose other contents it removes. A sandbox may have written
// anywhere in the moat, but the chain's own directories stay, so the
// tree's T keeps its path and its directory. Whatever stands where a
// kept directory goes and is no directory (a link, a file) is removed
// too. It returns T and the kept directories that stood, nil when the
// chain did not.
func chainRoot(base *os.Root, at string, d int, keep map[string]bool, own func(worldPath string) bool) (*os.Root, map[string]bool, error) {
	dir, stood := base, true
	for level := 0; level <= d; level++ {
		name := "m"
		if level == d {
			name = "t"
		}
		var err error
		if stood {
			stood, err = emptyBut(dir, func(n string) bool { return n == name }, nil)
		}
		if err == nil && !stood {
			err = dir.Mkdir(name, 0o755) // the rest of the chain is new
		}
		var next *os.Root
		if err == nil {
			next, err = openDir(dir, name, at)
		}
		if dir != base {
			dir.Close()
		}
		if err != nil {
			return nil, nil, err
		}
		dir, at = next, filepath.Join(at, name)
	}
	if !stood {
		return dir, nil, nil
	}
	kept := map[string]bool{}
	if err := emptyKept(dir, at, "", keep, own, kept); err != nil {
		dir.Close()
		return nil, nil, err
	}
	return dir, kept, nil
}

// openDir opens the directory name in r (at is r's path, for the words
// of an error), one that is a directory and not a link to one, opened to
// its owner (a sandbox may have shut it): a sandbox may put a link, a
// named pipe or a file where the harness's own directory was, even
// between the look and the opening.
func openDir(r *os.Root, name, at string) (*os.Root, error) {
	where := filepath.Join(at, name)
	before, err := r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !before.IsDir() {
		return nil, fmt.Errorf("%s is no directory now (%v): %w", where, before.Mode().Type(), errReplaced)
	}
	if testHookOpenDir != nil {
		testHookOpenDir(where)
	}
	// Opened as a directory only: a named pipe put in its place fails at
	// once rather than leave the open waiting. os.Root follows a link
	// inside it, so what was opened is checked to be what was looked at.
	f, err := r.OpenFile(name, os.O_RDONLY|onlyDir|noFollow, 0)
	if errors.Is(err, fs.ErrPermission) {
		// Shut to the harness, which cannot open it to chmod it through
		// its descriptor: by name, then (a link put in its place since
		// is followed, but only within r, and refused below).
		if err = r.Chmod(name, 0o755); err == nil {
			f, err = r.OpenFile(name, os.O_RDONLY|onlyDir|noFollow, 0)
		}
	}
	if err != nil {
		if now, lerr := r.Lstat(name); lerr != nil || !os.SameFile(before, now) {
			return nil, fmt.Errorf("%s is another directory now (%v): %w", where, err, errReplaced)
		}
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(before, st) {
		return nil, fmt.Errorf("%s is another directory now: %w", where, errReplaced)
	}
	if before.Mode().Perm() != 0o755 {
		if err := f.Chmod(0o755); err != nil {
			return nil, err
		}
	}
	d, err := heldRoot(f, r, name, before)
	if errors.Is(err, errReplaced) {
		return nil, fmt.Errorf("%s is another directory now: %w", where, err)
	}
	return d, err
}

// heldRoot is a root on the directory f holds, opened as name in r and
// found to be the one looked at: by f's own path (heldPath), whatever
// stands at name by now; where the system has no such path (no /proc),
// by name, checked once opened.
func heldRoot(f *os.File, r *os.Root, name string, looked fs.FileInfo) (*os.Root, error) {
	d, err := os.OpenRoot(heldPath(f))
	if err != nil {
		if d, err = r.OpenRoot(name); err != nil {
			return nil, err
		}
	}
	if st, err := d.Stat("."); err != nil || !os.SameFile(looked, st) {
		d.Close()
		return nil, errReplaced
	}
	return d, nil
}

// errReplaced says a directory of the tree is not the one the harness
// looked at a moment before.
var errReplaced = errors.New("the sandbox replaced it")

// testHookOpenDir, when set, runs in openDir between the look at a
// directory (at its path) and its opening: a test swaps the directory
// there.
var testHookOpenDir func(path string)

// emptyKept empties dir, the world directory at (T itself for ""), real
// path real, but for its subdirectories keep names, which it empties the
// same way, noting in stood each that stood, and the directories own
// calls the sandbox's (Tree.isOwn), which it leaves as they are.
func emptyKept(dir *os.Root, real, at string, keep map[string]bool, own func(worldPath string) bool, stood map[string]bool) error {
	var sub []string
	if _, err := emptyBut(dir, func(n string) bool {
		if keep[at+"/"+n] {
			sub = append(sub, n)
			return true
		}
		return false
	}, func(n string) bool { return own(at + "/" + n) }); err != nil {
		return err
	}
	for _, n := range sub {
		stood[at+"/"+n] = true
		d, err := openDir(dir, n, real)
		if err != nil {
			return err
		}
		err = emptyKept(d, filepath.Join(real, n), at+"/"+n, keep, own, stood)
		d.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// emptyBut removes from dir, opened to its owner (openDir), every entry
// but the directories keep names and the directories leave names (nil:
// none), and reports whether one keep names was kept. It never follows a
// link.
func emptyBut(dir *os.Root, keep, leave func(name string) bool) (bool, error) {
	f, err := dir.OpenFile(".", os.O_RDONLY|onlyDir, 0)
	if err != nil {
		return false, err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return false, err
	}
	found := false
	for _, e := range entries {
		if e.IsDir() && keep(e.Name()) { // IsDir is the entry's own type: a link is none
			found = true
			continue
		}
		if e.IsDir() && leave != nil && leave(e.Name()) {
			continue
		}
		if err := removeIn(dir, e.Name()); err != nil {
			return false, err
		}
	}
	return found, nil
}

// build makes the directories and files of the world in r, T, then its
// links: while anything is being made there is no link in T to make it
// through, and os.Root refuses whatever would leave T anyway.
func (t *Tree) build(r *os.Root, p *plan) error {
	for _, d := range p.dirs {
		if err := r.Mkdir(rel(d), 0o755); err != nil && !(errors.Is(err, fs.ErrExist) && p.kept[d]) {
			return err
		}
		if err := r.Chmod(rel(d), 0o755); err != nil {
			return err
		}
	}
	for _, f := range p.files {
		if err := WriteNew(r, rel(f.Path), f.Data); err != nil {
			return err
		}
	}
	for _, l := range p.links {
		if err := r.Symlink(t.linkTarget(l.Path, l.Target), rel(l.Path)); err != nil {
			return err
		}
	}
	return nil
}

// WriteNew writes data to a new file at name in r, mode 0644: one that
// something already stands at is an error, never written through. A
// sandbox may race the harness in a tree: a hard link it put at the path
// would lead what the harness writes (the world's canaries among it) to a
// file anywhere on the disk, and a named pipe would block the write.
func WriteNew(r *os.Root, name, data string) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(data)
	if err == nil {
		err = f.Chmod(0o644) // the umask's, on the file made: a path may lead elsewhere by now
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rel is a canonical world path as os.Root names it.
func rel(p string) string { return p[1:] }

// linkTarget is a world link target as the disk holds it: an absolute one
// rewritten under T, a relative one kept verbatim (SPEC §13).
func (t *Tree) linkTarget(at, target string) string {
	switch {
	case !strings.HasPrefix(target, "/"):
		return target
	case t.relLinks && !strings.Contains(target, ".."):
		// The shortest relative path: a link that stays in a directory
		// never climbs above it, so a sandbox confined there may follow it.
		// (The link's directory is a real one: no link is planted under
		// another.)
		if r, err := filepath.Rel(path.Dir(at), target); err == nil {
			return r
		}
		fallthrough
	case t.relLinks:
		// A target with ".." is resolved physically (SPEC §13), which a
		// lexical shortening would not be: climb to T, then follow it.
		up := strings.Count(path.Dir(at), "/")
		if path.Dir(at) == "/" {
			up = 0
		}
		return strings.Repeat("../", up) + "." + target
	}
	return t.root + target
}

// Kept reports whether the directory at world path p, a grant root
// (Options.KeepRoots), stood from the tree before and was kept, rather
// than made anew (or not asked for): a sandbox working in it, holding it
// open or confined to it since then has it still.
func (t *Tree) Kept(p string) bool {
	c, ok := clean(p)
	return ok && t.stood[c]
}

// isOwn reports whether the directory at world path p is one the sandbox
// keeps for itself (Options.Own): one of its names, in a grant root.
func (t *Tree) isOwn(p string) bool {
	return slices.Contains(t.own, path.Base(p)) && t.roots[path.Dir(p)]
}

// OpenRoot opens T for the harness's own writes between ops: the
// directory Materialize made, not whatever a sandbox has put at its path
// since (a link to elsewhere, which a path would follow). It fails when
// T's path names another directory now.
func (t *Tree) OpenRoot() (*os.Root, error) {
	r, err := os.OpenRoot(t.root)
	if err != nil {
		return nil, err
	}
	if st, err := r.Stat("."); err != nil || !os.SameFile(st, t.made) {
		r.Close()
		return nil, &MovedError{Root: t.root}
	}
	return r, nil
}

// MovedError is OpenRoot's error where T's path names another directory
// than the one the tree was built in.
type MovedError struct{ Root string }

// Error says so.
func (e *MovedError) Error() string {
	return e.Root + " is no longer the tree's root: a sandbox moved it, or put a link there"
}

// Base returns the tree's base directory, the one it was materialized
// in, absolute, with no link in it: it holds the moat and T.
func (t *Tree) Base() string { return t.base }

// Root returns T, the directory world path "/" maps to: absolute, with
// no link in it.
func (t *Tree) Root() string { return t.root }

// Path returns the real path of world path p, T+p verbatim: p is not
// cleaned, so a hostile "/work/../etc" stays T+"/work/../etc" and the
// sandbox meets it as it is. It returns false for a relative p, which names
// nothing in the world.
func (t *Tree) Path(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	return t.root + p, true
}

// Remove removes the base directory and everything in it, whatever a
// sandbox did to the modes.
func (t *Tree) Remove() error { return removeAll(t.base) }

// removeAll removes p and everything in it: emptied through a root on p
// itself (removeIn), so that nothing a sandbox swaps in below p leads the
// harness's chmods out of it, then removed from its directory.
func removeAll(p string) error {
	parent, err := os.OpenRoot(filepath.Dir(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	name := filepath.Base(p)
	if fi, err := parent.Lstat(name); err != nil || !fi.IsDir() {
		return parent.RemoveAll(name) // nothing there, or no directory to empty
	}
	r, err := openDir(parent, name, parent.Name())
	if err != nil {
		return err
	}
	f, err := r.OpenFile(".", os.O_RDONLY|onlyDir, 0)
	if err == nil {
		var entries []os.DirEntry
		entries, err = f.ReadDir(-1)
		f.Close()
		for _, e := range entries {
			err = errors.Join(err, removeIn(r, e.Name()))
		}
	}
	r.Close()
	return errors.Join(err, parent.Remove(name))
}

// maxOpened bounds the directories removeIn visits: a sandbox racing it,
// swapping a directory for a link to one above, would keep it walking.
const maxOpened = 1 << 20

// removeIn is r.RemoveAll(name) for a tree a sandbox may have made hard
// to remove: a directory chmodded shut (which stops removal for anyone
// but root), or a chain of directories deeper than a path may name, which
// a removal that goes down by path does again and again from r. Here each
// directory is made writable and searchable again, emptied of its files,
// and its directories are renamed up into r, to be emptied there in turn:
// no path and no descriptor grows with the tree's depth, and each entry
// is dealt with once. Each directory is read as a directory only (a named
// pipe put in its place is not waited on), and nothing follows a link out
// of r.
func removeIn(r *os.Root, name string) error {
	if r.RemoveAll(name) == nil {
		return nil
	}
	todo := []string{name}
	var up []string // the directories renamed into r
	for opened := 0; len(todo) > 0; opened++ {
		if opened == maxOpened {
			return fmt.Errorf("removing %s: more than %d directories in it, left where they stand", name, maxOpened)
		}
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		moved := lift(r, d)
		todo, up = append(todo, moved...), append(up, moved...)
		r.Remove(d) // best effort: RemoveAll reports what stays
	}
	err := r.RemoveAll(name)
	for _, u := range up {
		err = errors.Join(err, r.RemoveAll(u))
	}
	return err
}

// lift empties the directory d of r of its files, and renames each
// directory in it to a new name in r, which it returns.
func lift(r *os.Root, d string) []string {
	if fi, err := r.Lstat(d); err != nil || !fi.IsDir() {
		return nil
	}
	r.Chmod(d, 0o755) // best effort: RemoveAll reports what stays
	f, err := r.OpenFile(d, os.O_RDONLY|onlyDir|noFollow, 0)
	if err != nil {
		return nil
	}
	entries, _ := f.ReadDir(-1)
	f.Close()
	var moved []string
	for _, e := range entries {
		child := path.Join(d, e.Name())
		if !e.IsDir() {
			r.Remove(child)
			continue
		}
		// A name no world draws, in r: the harness's own.
		to := fmt.Sprintf(".sbxfuzz-remove-%016x", rand.Uint64())
		if r.Rename(child, to) == nil {
			moved = append(moved, to)
		}
	}
	return moved
}
