package realfs

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"slices"
)

// walker takes one Observation. It never follows a link: every entry is
// looked at with Lstat, and a directory or file is then opened with
// noFollow, so one swapped for a link since its Lstat is refused, not
// followed, and one swapped for a named pipe is not waited on.
type walker struct {
	t   *Tree
	es  []Entry
	buf []byte // reused for file contents
}

// walk records the entry at real path p and, for a directory, everything
// below it, without following a link.
func (w *walker) walk(p string) error {
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	e := Entry{Path: w.t.worldOf(p[len(w.t.base):]), Mode: info.Mode()}
	if e.Mode.IsDir() && w.t.isOwn(e.Path) {
		return nil // the sandbox's own (Options.Own)
	}
	switch {
	case e.Mode.IsDir():
		w.es = append(w.es, e)
		return w.walkDir(p)
	case e.Mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		e.Target = w.t.worldTarget(target)
	case e.Mode.IsRegular():
		w.readFile(p, info.Size(), &e)
	}
	w.es = append(w.es, e)
	return nil
}

// walkDir walks the entries of directory p in name order. A directory that
// cannot be listed is marked Unread (its entry is the last one recorded).
func (w *walker) walkDir(p string) error {
	names, err := list(p)
	if err != nil {
		w.es[len(w.es)-1].Unread = true
		return nil
	}
	slices.Sort(names)
	for _, n := range names {
		if err := w.walk(p + "/" + n); err != nil {
			return err
		}
	}
	return nil
}

// list returns the names in directory p.
func list(p string) ([]string, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow|onlyDir, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// readFile fills in e's content; a file that cannot be opened or read is
// marked Unread.
func (w *walker) readFile(p string, size int64, e *Entry) {
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err != nil {
		e.Unread = true
		return
	}
	defer f.Close()
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
