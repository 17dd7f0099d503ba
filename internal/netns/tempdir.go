package netns

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// swept holds, for each prefix TempDir was given in each temporary
// directory, a *sync.Once: the directories dead processes left are swept
// once a process.
var swept sync.Map

// TempDir makes a directory of this process's own (mode 0700) in the
// system's temporary directory, for files a command in a namespace must
// have at a short path. Its name is prefix, the process's PID, "-" and
// random digits. Whoever made it removes it; a process killed before
// that (SIGKILL) leaves it, and on Linux, where the namespaces are, the
// first TempDir of the same prefix in a later process removes every such
// directory whose process no longer runs. A name with no PID after
// prefix, a link, or a directory of a process that runs is left as it
// is.
func TempDir(prefix string) (string, error) {
	tmp := os.TempDir()
	once, _ := swept.LoadOrStore(filepath.Join(tmp, prefix), new(sync.Once))
	once.(*sync.Once).Do(func() { sweepDead(tmp, prefix) })
	return os.MkdirTemp(tmp, prefix+strconv.Itoa(os.Getpid())+"-")
}

// sweepDead removes from tmp the directories TempDir made with prefix
// whose process no longer runs (alive).
func sweepDead(tmp, prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, prefix+"*-*"))
	for _, d := range dirs {
		pidWord, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), prefix), "-")
		pid, err := strconv.Atoi(pidWord)
		if err != nil || pid <= 0 || pid == os.Getpid() || strconv.Itoa(pid) != pidWord {
			continue
		}
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			continue // a link is never followed, nor a file removed
		}
		if !alive(pid) {
			os.RemoveAll(d)
		}
	}
}

// RemoveOwnTempDirs removes the directories TempDir made with prefix in
// this process that are still there: a run that gave up on a sandbox
// still at work ends before that sandbox's own cleanup would remove its
// directory, which a later process's TempDir would sweep only if it used
// the same prefix. A link or a file of that name is left as it is.
func RemoveOwnTempDirs(prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+strconv.Itoa(os.Getpid())+"-*"))
	for _, d := range dirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			os.RemoveAll(d)
		}
	}
}
