//go:build unix

package mcp

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// tree is a test Paths: world path p is string(tree)+p, as realfs.Tree
// maps it.
type tree string

func (t tree) Path(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	return string(t) + p, true
}

func (t tree) Root() string { return string(t) }

// ReadFile reads p below the test's tree by path: a fake server of these
// tests swaps nothing in, and realfs.Tree's own ReadFile is tested there.
func (t tree) ReadFile(p string, max int64) ([]byte, error) {
	b, err := os.ReadFile(string(t) + strings.TrimRight(p, "/"))
	if err == nil && int64(len(b)) > max {
		return nil, errors.New("too long")
	}
	return b, err
}

// newTree builds the tree the tests share under a fresh directory:
// /work (the allowed directory) with a file, a prefix sibling /workshop
// with a secret, /outside with a secret, and /work/link -> /outside/secret.
func newTree(t *testing.T) tree {
	t.Helper()
	root := t.TempDir()
	for p, data := range map[string]string{
		"/work/hello.txt":  "hello from work\n",
		"/workshop/secret": "WORKSHOP SECRET\n",
		"/outside/secret":  "OUTSIDE SECRET\n",
	} {
		if err := os.MkdirAll(filepath.Dir(root+p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(root+p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root+"/outside/secret", root+"/work/link"); err != nil {
		t.Fatal(err)
	}
	return tree(root)
}

// python is the python3 interpreter itself, found once: a version
// manager's shim in front of it (pyenv's) costs half a second a start.
var python = sync.OnceValue(func() string {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

func needPython(t *testing.T) string {
	t.Helper()
	py := python()
	if py == "" {
		t.Skip("python3 is not installed: the fake MCP servers are Python scripts")
	}
	return py
}

// fake is the command of the fake server in mode.
func fake(t *testing.T, mode string) []string {
	t.Helper()
	script, err := filepath.Abs("testdata/fakemcp.py")
	if err != nil {
		t.Fatal(err)
	}
	return []string{needPython(t), script, mode}
}

// patience is the timeout of a call that must be answered, and the bound
// of every wait for a process to do what it does within a second: it is
// only reached when the test fails, so it is far above what a loaded
// machine takes. The tests of a hang set a short timeout of their own.
const patience = time.Minute

// hangTimeout is the call timeout of the tests of a server that hangs:
// only waited for, never raced against an answer.
const hangTimeout = 300 * time.Millisecond

// fakeConfig is the Config of the fake server in mode over tr, /work
// allowed.
func fakeConfig(t *testing.T, mode string, tr tree) Config {
	return Config{Command: fake(t, mode), Root: string(tr), Allowed: []string{string(tr) + "/work"}, Timeout: patience, StartTimeout: patience}
}

// startFake starts the fake server in mode over a fresh tree, closed when
// the test ends.
func startFake(t *testing.T, mode string) (*Server, tree) {
	t.Helper()
	tr := newTree(t)
	s, err := Start(fakeConfig(t, mode, tr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, tr
}

func read(p string) core.Op     { return core.Op{Kind: core.OpRead, Args: []string{p}} }
func write(p, d string) core.Op { return core.Op{Kind: core.OpWrite, Args: []string{p, d}} }

// processes lists the processes whose command line holds marker.
func processes(marker string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// noneLeft fails the test if a process whose command line holds the
// tree's directory (every server and its children are given it) is still
// running a moment after everything was closed. The directory is this
// run's own, so tests running elsewhere on the machine do not count.
func noneLeft(t *testing.T, tr tree) {
	t.Helper()
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to count processes")
	}
	marker := string(tr) + "/"
	eventually(func() bool { return len(processes(marker)) == 0 })
	if left := processes(marker); len(left) > 0 {
		t.Fatalf("%d processes left running: %v", len(left), left)
	}
}

// stderrSays fails the test unless the server's stderr soon holds want:
// stderr is copied by a goroutine of its own, so it may trail the answer
// the server wrote after it.
func stderrSays(t *testing.T, s *Server, want string) {
	t.Helper()
	if !eventually(func() bool { return strings.Contains(s.Stderr(), want) }) {
		t.Errorf("stderr %q, want %q in it", s.Stderr(), want)
	}
}

// eventually reports whether cond holds within patience.
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(patience)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}
