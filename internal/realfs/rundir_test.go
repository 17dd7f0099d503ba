//go:build unix

package realfs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// helperTreeEnv, when set, makes TestHelperRun a run of its own: it opens a
// run directory under the directory the variable names, prints its path,
// and waits to be killed.
const helperTreeEnv = "SBXFUZZ_TEST_HELPER_TREE"

func TestHelperRun(t *testing.T) {
	dir := os.Getenv(helperTreeEnv)
	if dir == "" {
		t.Skip("a helper process of TestSweep")
	}
	d, err := OpenRunDir(dir)
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString(d.Path() + "\n")
	os.Stdin.Read(make([]byte, 1)) // until killed, or the test ends
	os.Exit(0)
}

// startRun starts a run in another process, holding a run directory under
// treeDir, and returns it and the directory.
func startRun(t *testing.T, treeDir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRun$")
	cmd.Env = append(os.Environ(), helperTreeEnv+"="+treeDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, treeDir) {
		t.Fatalf("the helper run said %q, %v", line, err)
	}
	return cmd, strings.TrimSuffix(line, "\n")
}

// deadPID returns the PID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.Pid()
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// TestSweep: a run removes the run directories of dead runs — one whose
// lock nobody holds, even under a PID that is alive (reused), one killed
// with SIGKILL, one killed before it made its lock — and keeps those of
// live runs, in this process or another, and everything under the tree
// directory that is not a run directory, links included, without
// following them.
func TestSweep(t *testing.T) {
	treeDir, outside := t.TempDir(), t.TempDir()
	name := func(pid int, random string) string { return filepath.Join(treeDir, runName(pid, random)) }
	unlocked := name(os.Getpid(), "00000000000000aa") // a PID alive now: taken for a reused one
	mkdirs(t, unlocked+"/0/m/m/t/work", unlocked+"/shut/inner")
	os.WriteFile(unlocked+"/"+lockName, nil, 0o600)
	os.Chmod(unlocked+"/shut", 0) // a sandbox may shut a directory
	lockless := name(deadPID(t), "00000000000000bb")
	mkdirs(t, lockless+"/0")
	making := name(os.Getpid(), "00000000000000cc") // alive and not locked yet
	mkdirs(t, making)
	foreign := []string{filepath.Join(treeDir, "notes"), filepath.Join(treeDir, "1-xyz"), filepath.Join(treeDir, "01-00000000000000dd")}
	mkdirs(t, foreign...)
	mkdirs(t, outside+"/victim")
	os.WriteFile(outside+"/"+lockName, nil, 0o600)
	link := name(deadPID(t), "00000000000000ee")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	mine, err := OpenRunDir(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Remove()
	killed, killedDir := startRun(t, treeDir)
	_, aliveDir := startRun(t, treeDir)
	if err := killed.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
		t.Fatal(err)
	}
	killed.Wait()

	next, err := OpenRunDir(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Remove()
	for _, p := range []string{unlocked, lockless, killedDir} {
		if exists(p) {
			t.Errorf("%s: the run directory of a dead run is left", p)
		}
	}
	for _, p := range append([]string{making, mine.Path(), aliveDir, link, outside + "/victim", outside + "/" + lockName}, foreign...) {
		if !exists(p) {
			t.Errorf("%s: removed, but it is not a dead run's", p)
		}
	}
}

// TestRunDirRemove: Remove takes the run directory and all in it, shut
// directories included, and leaves the tree directory; the second call
// does nothing.
func TestRunDirRemove(t *testing.T) {
	treeDir := t.TempDir()
	d, err := OpenRunDir(treeDir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(d.Path()), runName(os.Getpid(), "")) {
		t.Errorf("%s: not named by the run's PID", d.Path())
	}
	mkdirs(t, d.Path()+"/0/a/b")
	os.Chmod(d.Path()+"/0/a", 0)
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := d.Remove(); err != nil {
		t.Errorf("second Remove: %v", err)
	}
	left, _ := os.ReadDir(treeDir)
	if len(left) > 0 || !exists(treeDir) {
		t.Errorf("after Remove the tree directory holds %v (exists: %v), want nothing", left, exists(treeDir))
	}
}

// TestOpenRunDirTooLong: a tree directory whose trees' roots would not fit
// a path is refused when the run starts, with how to name another.
func TestOpenRunDirTooLong(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 250), strings.Repeat("d", 250), strings.Repeat("d", 250), strings.Repeat("d", 250))
	_, err := OpenRunDir(long)
	if err == nil || !strings.Contains(err.Error(), "--tree-dir") {
		t.Fatalf("OpenRunDir of a %d-byte path: %v, want an error naming --tree-dir", len(long), err)
	}
	if exists(filepath.Dir(long)) {
		t.Errorf("the too long tree directory was made before it was refused")
	}
}

// TestDefaultTreeDir: the variable wins; else the user's cache directory;
// with neither, an error that says how to name one. Never TMPDIR.
func TestDefaultTreeDir(t *testing.T) {
	cache, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(TreeDirEnv, "/somewhere/trees")
	if got, err := DefaultTreeDir(); got != "/somewhere/trees" || err != nil {
		t.Errorf("with %s set: %q, %v", TreeDirEnv, got, err)
	}
	t.Setenv(TreeDirEnv, "")
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	want := filepath.Join(cache, "sbxfuzz", "trees")
	if base, err := os.UserCacheDir(); err == nil && base != cache {
		want = filepath.Join(base, "sbxfuzz", "trees") // macOS: $HOME/Library/Caches
	}
	if got, err := DefaultTreeDir(); got != want || err != nil {
		t.Errorf("DefaultTreeDir() = %q, %v, want %q", got, err, want)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got, err := DefaultTreeDir(); err == nil || !strings.Contains(err.Error(), TreeDirEnv) || strings.HasPrefix(got, tmp) {
		t.Errorf("with no cache directory: %q, %v, want an error naming %s", got, err, TreeDirEnv)
	}
}
