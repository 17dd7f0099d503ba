//go:build unix

package realsut

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/corpus"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// check runs sc against adapter a and returns the findings.
func check(t *testing.T, a Adapter, src string) []oracle.Finding {
	t.Helper()
	return checkWithin(t, a, src, 2*time.Second)
}

// checkWithin is check with an op timeout of its own, for a sandbox whose
// op does much work before it answers.
func checkWithin(t *testing.T, a Adapter, src string, timeout time.Duration) []oracle.Finding {
	t.Helper()
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f, end, err := a.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Fatal(err)
	}
	return judge.Check(f, c, nil, judge.Options{Timeout: timeout})
}

func invariants(fs []oracle.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, string(f.Invariant.String()))
	}
	return out
}

// TestOSRootAgreesWithTheModel: on every corpus scenario, narrowed to what
// a file sandbox can express, the os.Root sandbox judged by observation
// alone has no finding. This proves the materializer and the observer: a
// false change, a false leak or a wrong verdict class would be one.
func TestOSRootAgreesWithTheModel(t *testing.T) {
	f, end, err := OSRoot.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	checked := 0
	err = fs.WalkDir(corpus.Files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".sbx") {
			return err
		}
		src, err := fs.ReadFile(corpus.Files, name)
		if err != nil {
			return err
		}
		sc, err := scenario.Parse(name, src)
		if err != nil {
			return err
		}
		if sc = AdaptFS(sc); sc == nil {
			return nil
		}
		c, err := judge.NewCase(sc)
		if err != nil {
			return err
		}
		checked++
		if got := judge.Check(f, c, nil, judge.Options{Timeout: 5 * time.Second}); len(got) > 0 {
			t.Errorf("%s:\n%s\nfindings: %v", name, sc.Format(), got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Errorf("only %d corpus scenarios could be expressed", checked)
	}
}

// TestLargeWriteJudgedWhole: a write past realfs.MaxInline, which an
// observation knows by its head, size and hash, is journaled whole when
// the file holds what the op wrote (os.Root writes it: no finding).
func TestLargeWriteJudgedWhole(t *testing.T) {
	f, end, err := OSRoot.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	big := strings.Repeat("0123456789", 20000)
	sc, err := scenario.Parse("big.sbx", []byte("grant fs_read /work\ngrant fs_write /work\n\nfs_write /work/out.txt "+big+"\nfs_read /work/out.txt\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Fatal(err)
	}
	if got := judge.Check(f, c, nil, judge.Options{Timeout: 10 * time.Second}); len(got) > 0 {
		t.Errorf("os.Root writing %d bytes: findings %v", len(big), got)
	}
}

// defective is the os.Root sandbox with one defect, applied after (or
// instead of) its own answer.
type defective struct {
	osRootDriver
	defect func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error)
}

func (d *defective) Do(op core.Op) (realfs.Outcome, error) {
	out, err := d.osRootDriver.Do(op)
	if err != nil {
		return out, err
	}
	return d.defect(d, op, out)
}

type defectSession struct {
	defect func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error)
}

func (defectSession) Close() error { return nil }

func (s defectSession) Driver(t *realfs.Tree, g core.GrantSpec, ws scenario.WorldSpec) (realfs.Driver, error) {
	return &defective{osRootDriver{tree: t, world: refworld.Prepare(ws), read: g.FSRead, write: g.FSWrite}, s.defect}, nil
}

func withDefect(defect func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error)) Adapter {
	a := OSRoot
	a.Open = func(string, Timeouts) (Session, error) { return defectSession{defect}, nil }
	return a
}

// onDisk is the real path of world path p in d's tree.
func onDisk(d *defective, p string) string {
	r, _ := d.tree.Path(p)
	return r
}

// removesLink answers as the os.Root sandbox does, and removes the link
// /work/ln, which no op may: a change of the tree under a read-only root.
func removesLink(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
	os.Remove(onDisk(d, "/work/ln"))
	return out, nil
}

const world = `grant fs_read /work/
grant fs_write /work/out/
file /work/a.txt hello
file /etc/secret "top secret"
link /work/ln /etc/secret
`

// TestObservedInvariantsCanFail: each invariant judged by observation is
// violated by a sandbox broken in exactly that way, and the os.Root
// sandbox over the same scenario has no finding.
func TestObservedInvariantsCanFail(t *testing.T) {
	for _, tc := range []struct {
		name, ops string
		want      string
		defect    func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error)
	}{
		{"a leak of a forbidden file's canary", "fs_read /work/a.txt\n", "confinement",
			func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				b, _ := os.ReadFile(onDisk(d, "/etc/secret"))
				out.Data += string(b)
				return out, nil
			}},
		{"a write outside the write roots", "fs_write /work/out/x y\n", "confinement",
			func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				os.WriteFile(onDisk(d, "/work/stray"), []byte("y"), 0o644)
				return out, nil
			}},
		{"an escape into the moat", "fs_read /work/a.txt\n", "confinement",
			func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				os.WriteFile(filepath.Join(d.tree.Root(), "..", "escaped"), []byte("y"), 0o644)
				return out, nil
			}},
		{"an effect on a denial", "fs_write /etc/passwd x\n", "no-effect-on-denial",
			func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				os.WriteFile(onDisk(d, "/work/out/trace"), []byte("y"), 0o644)
				return out, nil
			}},
		{"a wrong verdict", "fs_read /work/ln\n", "verdict-matches-model",
			func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				return realfs.Outcome{Verdict: realfs.NotFound}, nil
			}},
		{"a link removed on a denial", "fs_write /etc/x y\n", "no-effect-on-denial", removesLink},
		{"a link removed by a read, outside the write roots", "fs_read /work/a.txt\n", "confinement", removesLink},
		{"a crash", "fs_read /work/a.txt\n", "total",
			func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				return out, errors.New("the server exited")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(t, OSRoot, world+tc.ops); len(got) != 0 {
				t.Fatalf("the os.Root sandbox has findings: %v", got)
			}
			got := invariants(check(t, withDefect(tc.defect), world+tc.ops))
			if len(got) == 0 || got[0] != tc.want {
				t.Errorf("findings %v, want %s first", got, tc.want)
			}
		})
	}
}

// TestSessionsLeaveNothing: a session of each real-disk door makes its
// trees, and the server's working directory, in a run directory of its own
// under its tree directory, never in TMPDIR; it removes that directory
// when it ends, and at its start the one a dead run left.
func TestSessionsLeaveNothing(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	adapters := []Adapter{OSRoot}
	if py := python(); py != "" {
		script, err := filepath.Abs("../mcp/testdata/fakemcp.py")
		if err != nil {
			t.Fatal(err)
		}
		a, err := MCP(py + " " + script + " fs")
		if err != nil {
			t.Fatal(err)
		}
		adapters = append(adapters, a)
	} else {
		t.Log("python3 is not installed: the mcp: door is left out")
	}
	for _, a := range adapters {
		a.TreeDir = filepath.Join(t.TempDir(), "trees")
		dead := filepath.Join(a.TreeDir, "1-0123456789abcdef") // its lock file held by nobody
		if err := os.MkdirAll(dead+"/0/m/t", 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dead+"/lock", nil, 0o600)
		f, end, err := a.Start()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(dead); err == nil {
			t.Errorf("%s: the run directory of a dead run is left", a.Name)
		}
		sc, _ := scenario.Parse("t.sbx", []byte(world+"fs_read /work/a.txt\n"))
		c, _ := judge.NewCase(sc)
		if got := judge.Check(f, c, nil, judge.Options{Timeout: time.Minute}); len(got) > 0 {
			t.Errorf("%s: findings %v", a.Name, got)
		}
		runs, _ := os.ReadDir(a.TreeDir)
		if len(runs) != 1 {
			t.Fatalf("%s: the tree directory holds %d entries, want the session's run directory", a.Name, len(runs))
		}
		for _, name := range []string{"0/m", "1/m", "own", "lock"} { // the run's tree, the replay's, the server's directory
			if _, err := os.Lstat(filepath.Join(a.TreeDir, runs[0].Name(), name)); err != nil {
				t.Errorf("%s: %v", a.Name, err)
			}
		}
		if in, _ := os.ReadDir(tmp); len(in) > 0 {
			t.Errorf("%s: TMPDIR holds %s", a.Name, in[0].Name())
		}
		if err := end(); err != nil {
			t.Errorf("%s: end: %v", a.Name, err)
		}
		if left, _ := os.ReadDir(a.TreeDir); len(left) > 0 {
			t.Errorf("%s: left behind: %s", a.Name, left[0].Name())
		}
	}
}

// python is the python3 interpreter, or "" without one.
func python() string {
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// naive writes every op's path as given, with no check at all: the worst
// real sandbox, for the moat.
type naive struct{ tree *realfs.Tree }

func (n naive) Close() error { return nil }

func (n naive) Do(op core.Op) (realfs.Outcome, error) {
	p, _ := n.tree.Path(op.Args[0])
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		return realfs.Outcome{Verdict: realfs.NotFound}, nil
	}
	return realfs.Outcome{Verdict: realfs.Allowed}, nil
}

type naiveSession struct{}

func (naiveSession) Close() error { return nil }

func (naiveSession) Driver(t *realfs.Tree, _ core.GrantSpec, _ scenario.WorldSpec) (realfs.Driver, error) {
	return naive{t}, nil
}

// TestMoatHolds: a sandbox that writes wherever an op's path leads never
// writes outside its session's directory, however far the path climbs:
// within MaxDots it lands in the moat, beyond it the op is not sent.
func TestMoatHolds(t *testing.T) {
	tmp := t.TempDir()
	a := OSRoot
	a.Open = func(string, Timeouts) (Session, error) { return naiveSession{}, nil }
	a.TreeDir = filepath.Join(tmp, "trees")
	// MaxDots+5 climbs out of the moat (MaxDots+1 deep), the tree's base,
	// the session's run directory and the tree directory into tmp, where
	// the walk below looks
	// (never further, should the guard be broken); such an op is never
	// sent, so it has no finding either.
	for _, dots := range []int{2, MaxDots, MaxDots + 5} {
		p := "/work" + strings.Repeat("/..", dots) + "/ESCAPED"
		got := invariants(check(t, a, "grant fs_write /work/\nfs_write "+p+" x\n"))
		switch {
		case dots <= MaxDots && (len(got) == 0 || got[0] != "confinement"):
			t.Errorf("%d dots: findings %v, want the write in the moat seen", dots, got)
		case dots > MaxDots && len(got) > 0:
			t.Errorf("%d dots: findings %v: the op reached the sandbox", dots, got)
		}
	}
	var escaped []string
	filepath.WalkDir(filepath.Dir(tmp), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "ESCAPED" {
			escaped = append(escaped, p)
		}
		return nil
	})
	if len(escaped) > 0 {
		t.Errorf("written outside the session's trees: %v", escaped)
	}
}

// TestDirState: a server is reused only for directories that lead where
// they led at its start: the same root as a directory, as a link, or
// missing are three states, and the same tree twice is one. For a server
// that holds its directories, the same path made anew is another state;
// for one that holds paths, the same.
func TestDirState(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "work")
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := dirState([]string{root}, false)
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	plain, held := dirState([]string{root}, false), dirState([]string{root}, true)
	if plain != dirState([]string{root}, false) || held != dirState([]string{root}, true) {
		t.Fatal("the same directory described twice differently")
	}
	// Made anew, with a second directory standing meanwhile, so that the
	// new one cannot take the old one's inode.
	if err := os.Rename(root, filepath.Join(dir, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if plain != dirState([]string{root}, false) || held == dirState([]string{root}, true) {
		t.Error("a directory made anew: the same state for a server that holds it, or another for one that holds its path")
	}
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real"), root); err != nil {
		t.Fatal(err)
	}
	linked := dirState([]string{root}, false)
	if missing == plain || plain == linked || missing == linked {
		t.Fatalf("states not told apart: missing %q, directory %q, link %q", missing, plain, linked)
	}
}
