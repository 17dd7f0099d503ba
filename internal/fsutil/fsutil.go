// Package fsutil holds the file-system chores of the commands: reading
// input files with clear limits, writing output atomically, and checking
// output paths before any work is done.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// MaxInput is the largest scenario or corpus file the commands read. A
// scenario is a page of text; anything near this is not one.
const MaxInput = 16 << 20

// TempSuffix ends the name of every temporary file WriteAtomic and
// CheckOutDir create: ".NAME" + TempSuffix next to NAME. CleanTemps removes
// the ones a crash left behind.
const TempSuffix = ".sbxfuzz-tmp"

var (
	// ErrTooLarge is returned by ReadInput for files over MaxInput.
	ErrTooLarge = errors.New("file too large")
	// ErrNotRegular is returned by ReadInput and ExpandPatterns for a named
	// pipe, a device or a socket, which are refused without waiting on them.
	ErrNotRegular = errors.New("not a regular file")
	// ErrReadOnly is returned by WriteAtomic for an existing file whose mode
	// has no write bit: it is left as it is.
	ErrReadOnly = errors.New("read-only file")
)

// ReadInput reads a regular file of at most MaxInput bytes, following
// symbolic links. A directory, a named pipe, a device, a socket or an
// oversized file is refused before anything is opened or read, so ReadInput
// never waits for a writer; the file is opened non-blocking in case it is
// replaced by one in between, and checked again once open.
func ReadInput(name string) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := checkInput(name, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkInput(name, st); err != nil {
		return nil, err
	}
	buf := make([]byte, st.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n != len(buf) {
		return nil, err
	}
	return buf, nil
}

// checkInput refuses what ReadInput does not read.
func checkInput(name string, st fs.FileInfo) error {
	switch {
	case st.IsDir():
		return fmt.Errorf("%s: is a directory (use %s for the scenarios below it)", name, filepath.Join(name, "..."))
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, describeMode(st.Mode()))
	case st.Size() > MaxInput:
		return fmt.Errorf("%s: %w (%d bytes; the limit is %d)", name, ErrTooLarge, st.Size(), MaxInput)
	}
	return nil
}

// describeMode names the kind of a file that is neither regular nor a
// directory.
func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// writing serializes WriteAtomic calls on the same file within the
// process, so that one call's removal of stale temporary files never takes
// another's in flight.
var writing sync.Map // target path -> *sync.Mutex

// WriteAtomic writes data to name through a temporary file in the same
// directory, synced, and a rename, so a reader sees the old content or the
// new, never half of either, and an interrupted write leaves the old file.
// The file gets mode perm.
//
// When name is a symbolic link, its target is written (in the target's
// directory) and the link is kept. An existing file whose mode has no
// write bit is refused with ErrReadOnly and left untouched, whoever runs
// the program (root included).
//
// The temporary file is ".BASE.NNN" + TempSuffix next to the file written,
// NNN random, created with O_CREATE|O_EXCL: whatever is already there under
// any name (a link planted to make the write land elsewhere) is never
// opened, followed or truncated. The temporary files a crash left behind
// for the same file are removed by its next write, or by CleanTemps.
// WriteAtomic is safe for concurrent use within a process; two processes
// writing the same file at once are not supported.
func WriteAtomic(name string, data []byte, perm fs.FileMode) error {
	target, err := resolveTarget(name)
	if err != nil {
		return err
	}
	mu, _ := writing.LoadOrStore(target, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	f, err := os.CreateTemp(filepath.Dir(target), tempPrefix(target)+"*"+TempSuffix)
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := fill(f, data, perm); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	removeStaleTemps(target)
	return nil
}

// resolveTarget returns the file WriteAtomic writes for name: name itself
// when it does not exist, else the file its symbolic links lead to, which
// must have a write bit.
func resolveTarget(name string) (string, error) {
	lst, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return name, nil
	}
	if err != nil {
		return "", err
	}
	target := name
	if lst.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(name); err != nil {
			return "", fmt.Errorf("%s: symbolic link to nothing that can be written: %w", name, err)
		}
	}
	st, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	if st.Mode().IsRegular() && st.Mode().Perm()&0o222 == 0 {
		return "", fmt.Errorf("%s: %w (mode %s): not rewritten", name, ErrReadOnly, st.Mode().Perm())
	}
	return target, nil
}

// maxTempBase bounds how much of the target's name its temporary file's
// name repeats, so that a long name still leaves room, under the 255 bytes
// a name may have, for the random part and TempSuffix.
const maxTempBase = 128

// tempPrefix starts the names of target's temporary files: "." and the
// target's base name (its first maxTempBase bytes), then ".".
func tempPrefix(target string) string {
	base := filepath.Base(target)
	if len(base) > maxTempBase {
		base = strings.ToValidUTF8(base[:maxTempBase], "")
	}
	return "." + base + "."
}

// fill writes data to the new temporary file f, gives it mode perm,
// syncs it and closes it.
func fill(f *os.File, data []byte, perm fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeStaleTemps removes the temporary files of target that a crashed
// write left: its own names (tempPrefix, digits, TempSuffix) and the fixed
// name ".BASE" + TempSuffix of earlier versions. Removing a name never
// touches what a link under it leads to.
func removeStaleTemps(target string) {
	dir, prefix := filepath.Dir(target), tempPrefix(target)
	legacy := "." + filepath.Base(target) + TempSuffix
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if n := e.Name(); n == legacy || isTempOf(n, prefix) {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// isTempOf reports whether name is a temporary file WriteAtomic makes with
// prefix: the prefix, digits, TempSuffix.
func isTempOf(name, prefix string) bool {
	mid, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, TempSuffix)
	return ok && mid != "" && strings.Trim(mid, "0123456789") == ""
}

// CleanTemps removes the temporary files (names ending in TempSuffix) that
// an interrupted WriteAtomic or CheckOutDir left in dir; it does not look
// below dir. A missing dir has nothing to clean. Call it when no other
// process is writing to dir, as a command does on its output directory
// before it starts.
func CleanTemps(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), TempSuffix) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CheckOutDir makes sure files can be written in dir before any work is
// done: it creates dir and its parents when missing, as os.MkdirAll does,
// and proves it writable by creating and removing a temporary file there.
// An existing dir that is not a directory is an error.
func CheckOutDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe*"+TempSuffix)
	if err != nil {
		return fmt.Errorf("%s: directory not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// CheckOutFile makes sure name can be written before any work is done: its
// directory exists and is writable (a temporary file is created there and
// removed), and name is not a directory nor a read-only file (see
// WriteAtomic). name itself may be missing.
func CheckOutFile(name string) error {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return fmt.Errorf("%s: is a directory", name)
	} else if err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s: %w (mode %s)", name, ErrReadOnly, st.Mode().Perm())
	}
	dir := filepath.Dir(name)
	if real, err := filepath.EvalSymlinks(name); err == nil {
		dir = filepath.Dir(real) // WriteAtomic writes in the link's target's directory
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: directory %s does not exist", name, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	case !st.IsDir():
		return fmt.Errorf("%s: %s is not a directory", name, dir)
	}
	f, err := os.CreateTemp(dir, ".probe*"+TempSuffix)
	if err != nil {
		return fmt.Errorf("%s: directory %s not writable: %w", name, dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// ExpandPatterns turns command-line arguments into file names: "dir/..."
// stands for every file with the given extension below dir, in lexical
// order; anything else is kept as it is. A file below dir with the
// extension that is a named pipe, a device or a socket (after following
// symbolic links) is an error naming it, wrapping ErrNotRegular.
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
			if d.IsDir() || filepath.Ext(p) != ext {
				return nil
			}
			if !d.Type().IsRegular() {
				st, err := os.Stat(p)
				if err != nil {
					return err
				}
				if !st.Mode().IsRegular() && !st.IsDir() {
					return fmt.Errorf("%s: %w (%s)", p, ErrNotRegular, describeMode(st.Mode()))
				}
			}
			found = append(found, p)
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

// CacheDir is the directory of sbxfuzz's own that holds what the .ci/
// install scripts install for the doors (npm releases of MCP servers,
// proxies): $env when set, else sbxfuzz/name under the user's cache
// directory. what names its contents in the error.
func CacheDir(env, name, what string) (string, error) {
	if d := os.Getenv(env); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for %s (set %s): %w", what, env, err)
	}
	return filepath.Join(d, "sbxfuzz", name), nil
}
