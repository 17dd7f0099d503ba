package realfs

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// MaxInline is how many bytes of a file's content an Observation keeps;
// a longer file is known by its first MaxInline bytes, its size and a
// hash of the whole. Scenario files and the data ops write are far
// shorter, so only a sandbox gone astray writes past it.
const MaxInline = 64 << 10

// MaxHashed is how many bytes of a file Observe reads: a file longer than
// that is known by its size and a hash of its first MaxHashed bytes. A
// sandbox that leaves a file of gigabytes (a sparse one costs it nothing)
// would otherwise make every observation read them, and the time spent
// would be blamed on it as a hang.
const MaxHashed = 16 << 20

// The bounds of one Observation. A tree that Materialize builds holds the
// files and links of one scenario file (at most fsutil.MaxInput bytes, all
// its contents included) and what its ops write, below a moat of at most
// MaxMoat levels: an honest world stays far inside them. Past them only a
// sandbox gone astray has filled its tree (sparse files cost it no disk, a
// chain of directories made a level at a time has no path limit), and the
// harness would hold all of it, twice, between two ops.
const (
	// MaxEntries is the most entries an Observation holds.
	MaxEntries = 1 << 16
	// MaxObserved is the most bytes of paths, contents and link targets
	// an Observation holds.
	MaxObserved = 64 << 20
	// MaxDepth is how many levels below the base Observe looks, and
	// ReadFile descends: a directory deeper is recorded, Unread, and not
	// looked into. The walk holds a descriptor on each level it is in, so
	// the bound is also what one walk holds open: the deepest paths the
	// generators draw, below the deepest moat, stay well inside it.
	MaxDepth = 512
)

// BudgetError is Observe's error for a tree that holds more than an
// Observation does (MaxEntries, MaxObserved).
type BudgetError struct {
	Entries int   // entries recorded when the walk stopped
	Bytes   int64 // bytes of paths, contents and targets recorded by then
}

// Error says that the sandbox filled its tree past what the harness
// reads, with the numbers.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("the sandbox filled its tree past what the harness reads: %d entries and %d bytes of paths, contents and link targets by the time the walk stopped, where an observation holds at most %d entries and %d bytes",
		e.Entries, e.Bytes, MaxEntries, MaxObserved)
}

// Observation is a snapshot of a Tree's whole base, moat and T, taken
// without following a link. The zero Observation is an empty tree.
type Observation struct {
	Entries []Entry // one per entry of the base, the base included, sorted by Path
}

// Entry is one directory entry of an Observation. Entries are comparable
// with ==: two are equal exactly when nothing observable about them
// differs.
type Entry struct {
	Path   string      // world path, as Change.Path names it
	Mode   fs.FileMode // type and permission bits, as Lstat gives them
	Size   int64       // a regular file's length; 0 for anything else
	Data   string      // a regular file's content, its first MaxInline bytes when longer
	Sum    [32]byte    // SHA-256 of a file longer than MaxInline (of its first MaxHashed bytes); zero otherwise
	Target string      // a link's target, as a world path when it points into the base (see Observe)
	Unread bool        // the file's content or the directory's entries could not be read
}

// Find returns the entry of the world path p, and false when there is
// none.
func (o Observation) Find(p string) (Entry, bool) {
	i, ok := slices.BinarySearchFunc(o.Entries, p, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
	if !ok {
		return Entry{}, false
	}
	return o.Entries[i], true
}

// Holds reports whether e is a regular file whose content is data. The
// zero Entry, none found, holds nothing.
func (e Entry) Holds(data string) bool {
	if e.Path == "" || !e.Mode.IsRegular() || e.Unread || e.Size != int64(len(data)) {
		return false
	}
	if len(data) > MaxInline {
		return e.Sum == sha256.Sum256([]byte(data[:min(len(data), MaxHashed)]))
	}
	return e.Data == data
}

// Observe takes a snapshot of the whole base: every entry's path, type and
// mode, a file's content, a link's target. It never follows a link, and
// opens nothing but regular files (a named pipe a sandbox made is not
// waited on).
//
// An absolute link target into the base is recorded as the world path it
// reaches — T+"/etc/shadow" as "/etc/shadow", a place in the moat as
// "/../x" — so that Observations of the same world built in two
// directories are equal; any other target is recorded as Readlink gives
// it. A tree past the bounds of an Observation (MaxEntries, MaxObserved)
// fails it with a *BudgetError.
func (t *Tree) Observe() (Observation, error) {
	w := walker{t: t, buf: make([]byte, 8<<10)}
	if err := w.observe(); err != nil {
		return Observation{}, err
	}
	slices.SortFunc(w.es, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return Observation{Entries: w.es}, nil
}

// worldOf is the world path of the entry at base+rel (rel "" for the base
// itself, else "/" and the path below it). Inside T it is the path below
// T; in the moat it is the climb from T that reaches it — base/m/…/m/x, x
// beside t, is "/../x" — so confinement, which refuses ".." segments,
// judges every change there.
func (t *Tree) worldOf(rel string) string {
	if rel == t.chain {
		return "/"
	}
	if len(rel) > len(t.chain) && rel[len(t.chain)] == '/' && strings.HasPrefix(rel, t.chain) {
		return t.unembed(rel[len(t.chain):])
	}
	k := 0 // how many moat levels rel goes down before it leaves the chain
	for k < t.depth && (rel == "/m" || strings.HasPrefix(rel, "/m/")) {
		rel, k = rel[2:], k+1
	}
	return strings.Repeat("/..", t.depth+1-k) + rel
}

// worldTarget is a link's target as an Entry records it: an absolute one
// into the base as the world path it reaches, any other as it is.
func (t *Tree) worldTarget(target string) string {
	if target == t.base || strings.HasPrefix(target, t.base+"/") {
		return t.worldOf(target[len(t.base):])
	}
	return t.unembed(target)
}

// unembed is p with T's real path, and then the base's, written "/<T>"
// and "/<base>" where a sandbox put them into a name below a directory of
// the world: go-billy's BoundOS re-roots a link's absolute target
// (T+"/etc/x") under its root, making the directories of T's path there.
// The slot a tree is built in differs between a check's run and its
// replay, and such a name must not. A path that begins with them is kept:
// a grant root such as "/tmp/" may hold it as it is, and not as "/<T>".
func (t *Tree) unembed(p string) string {
	if !strings.Contains(p, t.base) {
		return p
	}
	return replacePath(replacePath(p, t.root, "/<T>"), t.base, "/<base>")
}

// replacePath replaces in p each dir that is a whole path in it, below
// its start: one that a "/" or p's end follows.
func replacePath(p, dir, with string) string {
	var b strings.Builder
	for start := true; ; start = false {
		i := strings.Index(p, dir)
		if i < 0 {
			b.WriteString(p)
			return b.String()
		}
		end := i + len(dir)
		b.WriteString(p[:i])
		if (i > 0 || !start) && (end == len(p) || p[end] == '/') {
			b.WriteString(with)
		} else {
			b.WriteString(dir)
		}
		p = p[end:]
	}
}
