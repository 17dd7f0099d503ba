package realfs

import (
	"crypto/sha256"
	"io/fs"
	"slices"
	"syscall"
)

// walker takes one Observation. It speaks to the kernel directly, one
// system call per step, because Observe runs after every op and the calls
// are its whole cost: os.ReadDir and os.ReadFile make several more per
// entry (a stat on open, a poller registration, a read that finds the end),
// which made Observe about twice as slow (BenchmarkObserve).
type walker struct {
	t   *Tree
	es  []Entry
	buf []byte // reused for directory listings and file contents
}

// walk records the entry at real path p and, for a directory, everything
// below it, without following a link.
func (w *walker) walk(p string) error {
	var st syscall.Stat_t
	if err := lstat(p, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	e := Entry{Path: w.t.worldOf(p[len(w.t.base):]), Mode: fileMode(uint32(st.Mode))}
	switch {
	case e.Mode.IsDir():
		w.es = append(w.es, e)
		return w.walkDir(p)
	case e.Mode&fs.ModeSymlink != 0:
		target, err := readlink(p, w.buf)
		if err != nil {
			return &fs.PathError{Op: "readlink", Path: p, Err: err}
		}
		e.Target = w.t.worldTarget(target)
	case e.Mode.IsRegular():
		w.readFile(p, st.Size, &e)
	}
	w.es = append(w.es, e)
	return nil
}

// walkDir walks the entries of directory p in name order. A directory that
// cannot be listed is marked Unread (its entry is the last one recorded).
func (w *walker) walkDir(p string) error {
	names, err := w.list(p)
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

// list returns the names in directory p; O_NOFOLLOW refuses a directory
// swapped for a link since its Lstat.
func (w *walker) list(p string) ([]string, error) {
	fd, err := open(p, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var names []string
	for {
		n, err := syscall.ReadDirent(fd, w.buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = syscall.ParseDirent(w.buf[:n], -1, names) // leaves out "." and ".."
	}
}

// readFile fills in e's content. O_NOFOLLOW and O_NONBLOCK keep a file
// swapped for a link or a pipe since its Lstat from being followed or
// waited on; a file that cannot be opened or read is marked Unread.
func (w *walker) readFile(p string, size int64, e *Entry) {
	fd, err := open(p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC)
	if err != nil {
		e.Unread = true
		return
	}
	defer syscall.Close(fd)
	head, err := w.readHead(fd, size)
	e.Unread = err != nil
	if len(head) <= MaxInline {
		e.Data, e.Size = string(head), int64(len(head))
		return
	}
	h := sha256.New()
	h.Write(head)
	e.Data, e.Size = string(head[:MaxInline]), int64(len(head))
	for err == nil {
		var k int
		if k, err = read(fd, w.buf); k == 0 {
			break
		}
		h.Write(w.buf[:k])
		e.Size += int64(k)
	}
	e.Unread = err != nil
	h.Sum(e.Sum[:0])
}

// readHead reads fd into w.buf, which it grows as needed, until the file
// ends or MaxInline+1 bytes are in. A read that stops short at size, the
// length Lstat gave, is taken as the end: it saves the read that would
// return nothing, a tenth of Observe's system calls. Past size, the
// length is only a hint, since a sandbox gone astray may still be writing.
func (w *walker) readHead(fd int, size int64) ([]byte, error) {
	n := 0
	for n <= MaxInline {
		if n == len(w.buf) {
			w.buf = slices.Grow(w.buf, min(n, MaxInline+1-n))[:min(2*n, MaxInline+1)]
		}
		k, err := read(fd, w.buf[n:])
		if err != nil || k == 0 {
			return w.buf[:n], err
		}
		if n += k; int64(n) == size && n < len(w.buf) {
			break
		}
	}
	return w.buf[:n], nil
}

// read is syscall.Read, retried when a signal interrupts it.
func read(fd int, buf []byte) (int, error) {
	for {
		k, err := syscall.Read(fd, buf)
		if err != syscall.EINTR {
			return max(k, 0), err
		}
	}
}
