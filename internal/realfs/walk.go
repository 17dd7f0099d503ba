package realfs

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// walker takes one Observation. It never follows a link, nor leaves the
// tree's directory: every entry is looked at with Lstat in a root held on
// its directory, and a directory or file is then opened in that root and
// found to be the one looked at (os.Root follows a link inside it whatever
// O_NOFOLLOW says: the identity check is what refuses one), so one swapped
// for a link since its Lstat is never followed (a sandbox that swaps a
// directory for a link to / would otherwise have the harness read the
// host's files), and one swapped for a named pipe is not waited on.
type walker struct {
	t     *Tree
	es    []Entry
	buf   []byte // reused for file contents
	bytes int64  // of paths, contents and targets in es (BudgetError)
}

// observe walks the tree's base, from a root on the directory it is in.
func (w *walker) observe() error {
	parent, err := os.OpenRoot(filepath.Dir(w.t.base))
	if err != nil {
		return err
	}
	defer parent.Close()
	return w.walk(parent, filepath.Base(w.t.base), "", 0)
}

// walk records the entry name of dir, at rel below the base ("" for the
// base itself) and depth levels below it, and for a directory everything
// below it, down to MaxDepth.
func (w *walker) walk(dir *os.Root, name, rel string, depth int) error {
	info, err := dir.Lstat(name)
	if err != nil {
		return err
	}
	if testHookWalked != nil {
		testHookWalked(rel, false)
	}
	e := Entry{Path: w.t.worldOf(rel), Mode: info.Mode()}
	if e.Mode.IsDir() && w.t.isOwn(e.Path) {
		return nil // the sandbox's own (Options.Own)
	}
	switch {
	case e.Mode.IsDir() && depth >= MaxDepth:
		e.Unread = true // not looked into: its entries' paths alone would outgrow the budget
	case e.Mode.IsDir():
		if err := w.add(e); err != nil {
			return err
		}
		return w.walkDir(dir, name, rel, info, depth)
	case e.Mode&fs.ModeSymlink != 0:
		target, err := dir.Readlink(name)
		if err != nil {
			return err
		}
		e.Target = w.t.worldTarget(target)
	case e.Mode.IsRegular():
		w.readFile(dir, name, info, &e)
	}
	return w.add(e)
}

// add records e, or fails with a BudgetError when the observation would
// hold more than the harness reads.
func (w *walker) add(e Entry) error {
	w.bytes += int64(len(e.Path) + len(e.Data) + len(e.Target))
	if len(w.es) >= MaxEntries || w.bytes > MaxObserved {
		return &BudgetError{Entries: len(w.es) + 1, Bytes: w.bytes}
	}
	w.es = append(w.es, e)
	return nil
}

// walkDir walks the entries of the directory name of parent, which Lstat
// gave as info, in name order. A directory that cannot be listed, or is
// another by the time it is opened, is marked Unread (its entry is the
// last one recorded).
func (w *walker) walkDir(parent *os.Root, name, rel string, info fs.FileInfo, depth int) error {
	d, names, err := list(parent, name, info)
	if err != nil {
		w.es[len(w.es)-1].Unread = true
		return nil
	}
	defer d.Close()
	if testHookWalked != nil {
		testHookWalked(rel, true)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := w.walk(d, n, rel+"/"+n, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// testHookWalked, when set, runs in walk between the look at an entry (at
// rel below the base) and its opening, and in walkDir between the listing
// of a directory and the walk of its entries (listed): a test swaps the
// entry there.
var testHookWalked func(rel string, listed bool)

// list opens the directory name of parent, found to be the one Lstat gave
// as info, and returns a root held on it and the names in it.
func list(parent *os.Root, name string, info fs.FileInfo) (*os.Root, []string, error) {
	f, d, err := openHeld(parent, name, info)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return d, names, nil
}

// openHeld opens the directory name of parent, without following a link
// or waiting on a pipe, and a root held on it, found to be the one Lstat
// gave as info (heldRoot).
func openHeld(parent *os.Root, name string, info fs.FileInfo) (*os.File, *os.Root, error) {
	f, err := parent.OpenFile(name, os.O_RDONLY|noFollow|onlyDir, 0)
	if err != nil {
		return nil, nil, err
	}
	d, err := heldRoot(f, parent, name, info)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, d, nil
}

// readFile fills in e's content from the file name of dir, which Lstat
// gave as info; a file that cannot be opened or read, or is another by
// the time it is opened, is marked Unread.
func (w *walker) readFile(dir *os.Root, name string, info fs.FileInfo, e *Entry) {
	f, err := dir.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		e.Unread = true
		return
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(info, st) {
		e.Unread = true
		return
	}
	size := info.Size()
	head, err := w.readHead(f, size)
	e.Unread = err != nil
	if len(head) <= MaxInline {
		e.Data, e.Size = string(head), int64(len(head))
		return
	}
	h := sha256.New()
	h.Write(head)
	rest, err := io.CopyBuffer(h, io.LimitReader(onlyReader{f}, MaxHashed-int64(len(head))), w.buf)
	e.Data, e.Size = string(head[:MaxInline]), int64(len(head))+rest
	if e.Size == MaxHashed {
		e.Size = max(size, MaxHashed) // longer than what is read of it
	}
	e.Unread = err != nil
	h.Sum(e.Sum[:0])
}

// onlyReader hides the file's WriteTo, so that io.CopyBuffer uses the
// walker's buffer.
type onlyReader struct{ io.Reader }

// readHead reads f into w.buf, which it grows as needed, until the file
// ends or MaxInline+1 bytes are in. A read that stops short at size, the
// length Lstat gave, is taken as the end: it saves the read that would
// return nothing, a tenth of Observe's system calls. Past size, the
// length is only a hint, since a sandbox gone astray may still be writing.
func (w *walker) readHead(f *os.File, size int64) ([]byte, error) {
	n := 0
	for n <= MaxInline {
		if n == len(w.buf) {
			w.buf = slices.Grow(w.buf, min(n, MaxInline+1-n))[:min(2*n, MaxInline+1)]
		}
		k, err := f.Read(w.buf[n:])
		if err == io.EOF {
			return w.buf[:n], nil
		}
		if err != nil {
			return w.buf[:n], err
		}
		if n += k; int64(n) == size && n < len(w.buf) {
			break
		}
	}
	return w.buf[:n], nil
}
