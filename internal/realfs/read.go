package realfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// ReadFile returns the content of the file at world path p as the tree
// holds it now, for the harness's second look at a file a server answered
// with (its lines numbered, cut or described): the links on the way are
// followed as the disk follows them, but only within T. Each directory is
// held by its descriptor and found to be the one looked at, a link's
// target is read and followed from the directory it is in (an absolute one
// into T as the world path it names), and the file is opened without
// following a link or waiting on a named pipe. A link out of T or past
// §13's 40, anything but a regular file, a file that is not the one looked
// at, or one longer than max bytes is an error: a sandbox that swaps a
// file for a link to the host's own, or for a pipe, after it answered has
// the harness read nothing of it.
func (t *Tree) ReadFile(p string, max int64) ([]byte, error) {
	root, err := t.OpenRoot()
	if err != nil {
		return nil, err
	}
	dirs := []*os.Root{root} // T, then each directory below it on the way
	defer func() {
		for _, d := range dirs {
			d.Close()
		}
	}()
	rest, links := segments(p), 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		if name == ".." {
			if len(dirs) == 1 {
				return nil, fmt.Errorf("%s climbs out of the tree", p)
			}
			dirs[len(dirs)-1].Close()
			dirs = dirs[:len(dirs)-1]
			continue
		}
		dir := dirs[len(dirs)-1]
		info, err := dir.Lstat(name)
		if err != nil {
			return nil, err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxLinks {
				return nil, fmt.Errorf("%s: more than %d links", p, maxLinks)
			}
			target, err := dir.Readlink(name)
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(target, "/") {
				in, ok := strings.CutPrefix(target, t.root)
				if !ok || in != "" && in[0] != '/' {
					return nil, fmt.Errorf("%s: a link out of the tree", p)
				}
				for _, d := range dirs[1:] {
					d.Close()
				}
				dirs, target = dirs[:1], in
			}
			rest = append(segments(target), rest...)
		case info.IsDir():
			if len(rest) == 0 {
				return nil, fmt.Errorf("%s is a directory", p)
			}
			if len(dirs) > MaxDepth {
				return nil, fmt.Errorf("%s: deeper than %d levels", p, MaxDepth)
			}
			f, d, err := openHeld(dir, name, info)
			if err != nil {
				return nil, err
			}
			f.Close()
			dirs = append(dirs, d)
		case info.Mode().IsRegular() && len(rest) == 0:
			if testHookReadFile != nil {
				testHookReadFile(name)
			}
			return readHeld(dir, name, info, max)
		default:
			return nil, fmt.Errorf("%s: %v is no directory or regular file", p, info.Mode().Type())
		}
	}
	return nil, fmt.Errorf("%s names no file", p)
}

// testHookReadFile, when set, runs in ReadFile between the look at the
// file (named name in its directory) and its opening: a test swaps it.
var testHookReadFile func(name string)

// maxLinks is how many links a path may pass, SPEC §13's bound.
const maxLinks = 40

// segments is p's names, empty ones and "." left out.
func segments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// readHeld reads the regular file name of dir, which Lstat gave as info,
// opened without following a link or waiting on a pipe and found to be
// that file, when it is no longer than max.
func readHeld(dir *os.Root, name string, info fs.FileInfo, max int64) ([]byte, error) {
	f, err := dir.OpenFile(name, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(info, st) || !st.Mode().IsRegular() {
		return nil, errReplaced
	}
	b, err := io.ReadAll(io.LimitReader(onlyReader{f}, max+1))
	if err == nil && int64(len(b)) > max {
		err = errors.New("longer than the harness reads again")
	}
	return b, err
}
