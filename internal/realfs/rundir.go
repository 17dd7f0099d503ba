package realfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TreeDirEnv names the environment variable that, when set, is the
// directory trees are made under unless one is given (--tree-dir).
const TreeDirEnv = "SBXFUZZ_TREE_DIR"

// DefaultTreeDir returns the directory the real-disk doors make their
// trees under when none is given: $SBXFUZZ_TREE_DIR when set, else
// sbxfuzz/trees under the user's cache directory (os.UserCacheDir:
// $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS). It is
// never the temporary directory or the home directory itself: a server
// that allows one of those by default would allow every path of every
// world in it. Where neither is known, the error says how to name one.
func DefaultTreeDir() (string, error) {
	if dir := os.Getenv(TreeDirEnv); dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return "", fmt.Errorf("no directory for the trees: the user has no cache directory (%v); name one with --tree-dir or %s", err, TreeDirEnv)
	}
	return filepath.Join(base, "sbxfuzz", "trees"), nil
}

// RunDir is a directory of one run's own under a tree directory: the
// run's trees go in it, and Remove removes it. Its name is the run's PID,
// a dash and 16 random hex digits. While the run lives, it holds a lock
// (flock) on the file "lock" in it, which the kernel lets go of however the
// run ends, SIGKILL included; OpenRunDir removes every run directory whose
// lock it can take, which are those of runs no longer alive (a PID that
// was reused since does not keep one). Remove it once, from one
// goroutine.
type RunDir struct {
	path string
	lock *os.File
}

// lockName is the file in a run directory its run holds a lock on.
const lockName = "lock"

// maxRunDir bounds a run directory's path, so that a tree's root (a slot
// number, the deepest moat, "/t") stays within maxRoot: a longer one is an
// error when the run starts, not a finding on every scenario.
const maxRunDir = maxRoot - 2*(MaxMoat+1) - len("/t") - len("/0000000000")

// OpenRunDir removes the run directories of dead runs under treeDir, then
// makes one for this run there, creating treeDir (mode 0700) if needed.
// Nothing else under treeDir is touched, and a link there is never
// followed. The error names treeDir; where trees cannot be built at all,
// it is Supported's.
func OpenRunDir(treeDir string) (*RunDir, error) {
	if err := Supported(); err != nil {
		return nil, err
	}
	dir, err := prepareTreeDir(treeDir)
	if err != nil {
		return nil, fmt.Errorf("tree directory %s: %w", treeDir, err)
	}
	sweep(dir)
	for range 3 { // a name taken, or a run directory swept before its lock was held: try another
		if d, err := newRunDir(dir); err == nil || !errors.Is(err, errRetry) {
			if err != nil {
				return nil, fmt.Errorf("tree directory %s: %w", treeDir, err)
			}
			return d, nil
		}
	}
	return nil, fmt.Errorf("tree directory %s: no run directory could be made and locked there", treeDir)
}

// prepareTreeDir creates treeDir and returns its absolute path with its
// links resolved, refusing, before it makes anything, one too long for a
// tree's root.
func prepareTreeDir(treeDir string) (string, error) {
	dir, err := filepath.Abs(treeDir)
	if err != nil {
		return "", err
	}
	if err := fitsARoot(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return "", err
	}
	return dir, fitsARoot(dir)
}

// fitsARoot refuses a tree directory whose trees' roots would be too long.
func fitsARoot(dir string) error {
	if most := maxRunDir - len("/") - maxRunName; len(dir) > most {
		return fmt.Errorf("the path is too long for a tree's root (%d bytes; at most %d): name a shorter one with --tree-dir or %s", len(dir), most, TreeDirEnv)
	}
	return nil
}

// errRetry says a run directory could not be made under its name, and
// another name may do.
var errRetry = errors.New("retry")

// newRunDir makes a run directory in dir and takes its lock. The lock file
// is checked to be still in place once locked: a run starting at the same
// moment may have swept the directory between its making and its locking.
func newRunDir(dir string) (*RunDir, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, runName(os.Getpid(), hex.EncodeToString(r[:])))
	if err := os.Mkdir(path, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, errRetry
		}
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		os.RemoveAll(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errRetry
		}
		return nil, err
	}
	if err := tryLock(lock); err != nil || !stillAt(lock, filepath.Join(path, lockName)) {
		lock.Close()
		return nil, errRetry
	}
	return &RunDir{path: path, lock: lock}, nil
}

// stillAt reports whether f is the file at path.
func stillAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// maxRunName is the longest name of a run directory: a PID of up to ten
// digits, a dash, 16 hex digits.
const maxRunName = 10 + 1 + 16

// runName is the name of a run directory: pid, a dash, and the random part.
func runName(pid int, random string) string {
	return strconv.Itoa(pid) + "-" + random
}

// parseRunName returns the PID a run directory's name starts with, and
// false for a name no run directory has: anything else under the tree
// directory is not ours to remove.
func parseRunName(name string) (int, bool) {
	pid, random, ok := strings.Cut(name, "-")
	if !ok || len(random) != 16 || strings.Trim(random, "0123456789abcdef") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 || strconv.Itoa(n) != pid {
		return 0, false
	}
	return n, true
}

// sweep removes the run directories under dir whose runs are gone:
// those whose lock it can take, and those without a lock file whose PID is
// not alive (a run killed between making its directory and its lock).
// Links are skipped, not followed; an error leaves the entry as it is.
func sweep(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := parseRunName(e.Name())
		if !ok || !e.IsDir() { // a link reads as a link, never as what it points to
			continue
		}
		removeIfDead(filepath.Join(dir, e.Name()), pid)
	}
}

// removeIfDead removes the run directory path, made by process pid, if its
// run is gone. The lock is held while the directory is removed, so two
// runs sweeping at once never remove one that a third has just made.
func removeIfDead(path string, pid int) {
	lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if !pidAlive(pid) {
			removeAll(path)
		}
		return
	}
	if err != nil {
		return
	}
	defer lock.Close()
	if tryLock(lock) == nil {
		removeAll(path)
	}
}

// Path returns the run directory's absolute path, free of links.
func (d *RunDir) Path() string { return d.path }

// Remove removes the run directory and everything in it, then lets go of
// its lock. It does nothing the second time.
func (d *RunDir) Remove() error {
	if d.lock == nil {
		return nil
	}
	err := removeAll(d.path)
	d.lock.Close()
	d.lock = nil
	return err
}
