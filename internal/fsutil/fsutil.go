// Package fsutil holds the file-system chores of the commands: reading
// input files with clear limits, and writing output atomically.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxInput is the largest scenario or corpus file the commands read. A
// scenario is a page of text; anything near this is not one.
const MaxInput = 16 << 20

// ErrTooLarge is returned by ReadInput for files over MaxInput.
var ErrTooLarge = errors.New("file too large")

// ReadInput reads a regular file of at most MaxInput bytes. A directory, a
// device or an oversized file is refused before anything is read.
func ReadInput(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("%s: is a directory (use %s/... for the scenarios below it)", name, name)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", name)
	case st.Size() > MaxInput:
		return nil, fmt.Errorf("%s: %w (%d bytes; the limit is %d)", name, ErrTooLarge, st.Size(), MaxInput)
	}
	buf := make([]byte, st.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n != len(buf) {
		return nil, err
	}
	return buf, nil
}

// WriteAtomic writes data to name through a temporary file in the same
// directory and a rename, so a reader sees the old content or the new,
// never half of either, and an interrupted write leaves the old file.
func WriteAtomic(name string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// ExpandPatterns turns command-line arguments into file names: "dir/..."
// stands for every file with the given extension below dir, in lexical
// order; anything else is kept as it is.
func ExpandPatterns(args []string, ext string) ([]string, error) {
	var out []string
	for _, a := range args {
		dir, ok := cutEllipsis(a)
		if !ok {
			out = append(out, a)
			continue
		}
		var found []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && filepath.Ext(p) == ext {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no %s files", a, ext)
		}
		out = append(out, found...)
	}
	return out, nil
}

func cutEllipsis(a string) (string, bool) {
	if a == "..." {
		return ".", true
	}
	for _, suffix := range []string{"/...", string(filepath.Separator) + "..."} {
		if len(a) > len(suffix) && a[len(a)-len(suffix):] == suffix {
			return a[:len(a)-len(suffix)], true
		}
	}
	return "", false
}
