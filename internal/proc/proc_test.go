//go:build unix

package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// python is the python3 interpreter itself, found once: a version
// manager's shim in front of it (pyenv's) costs half a second a start,
// which a loaded machine stretches towards the start timeouts below.
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
		t.Skip("python3 is not installed: the misbehaving children are Python scripts")
	}
	return py
}

// misbehaving returns the command of a child that breaks the protocol in
// one way on its first op.
func misbehaving(t *testing.T, how string) string {
	script, err := filepath.Abs("testdata/misbehave.py")
	if err != nil {
		t.Fatal(err)
	}
	return needPython(t) + " " + script + " " + how
}

// patience is the op timeout of a child that must answer, and the bound
// of every wait for a child to do what it does within a second: it is
// only reached when the test fails, so it is far above what a loaded
// machine takes. hangTimeout is the op timeout of a child that hangs,
// only ever waited for, never raced against an answer.
const (
	patience    = time.Minute
	hangTimeout = 300 * time.Millisecond
)

func twoOps(t *testing.T) judge.Case {
	sc, err := scenario.Parse("two.sbx", []byte("grant fs_read /work/\nfs_read /work/a\nfs_read /work/b\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMisbehavingChildren: every way a child can break the protocol is a
// total finding on the op, in words that say what happened, with the tail
// of its stderr; the session then starts a fresh child for the next
// scenario.
func TestMisbehavingChildren(t *testing.T) {
	for _, tc := range []struct{ how, says string }{
		{"crash", "the sandbox process exited (exit status 3)"},
		{"hang", "did not return within"},
		{"garbage", `not a JSON-RPC 2.0 message: "hello, world"`},
		{"wrongid", "a response with id 104, want 4"},
		{"error", "answered with an error: -1 nope"},
		{"unknownkind", `a result of kind "teleport"`},
		{"huge", "a line longer than the protocol's limit"},
		{"outofturn", "a world request (world/read) when none may come"},
	} {
		t.Run(tc.how, func(t *testing.T) {
			t.Setenv("MISBEHAVE_HUGE", strconv.Itoa(proto.MaxLine))
			start, err := Sessions(misbehaving(t, tc.how))
			if err != nil {
				t.Fatal(err)
			}
			f, end, _ := start()
			defer end()
			timeout := patience
			if tc.how == "hang" {
				timeout = hangTimeout
			}
			k := oracle.NewChecker(f, oracle.Options{Timeout: timeout})
			defer k.Close()
			got := checkOn(t, k, twoOps(t))
			var total *oracle.Finding
			for i := range got {
				if got[i].Invariant == oracle.Total {
					total = &got[i]
				}
			}
			if total == nil || !strings.Contains(total.Detail, tc.says) {
				t.Fatalf("findings %v, want a total finding saying %q", got, tc.says)
			}
			if tc.how != "hang" && tc.how != "outofturn" && !strings.Contains(total.Detail, "misbehaving: "+tc.how) {
				t.Errorf("the finding lacks the child's stderr: %s", total.Detail)
			}
			// The next scenario gets a fresh child, which misbehaves again
			// on its own first op: the session recovered.
			again := checkOn(t, k, twoOps(t))
			if len(again) == 0 || again[0].Invariant != oracle.Total && tc.how != "outofturn" {
				t.Errorf("the second scenario: %v", again)
			}
		})
	}
}

// children lists the processes whose command line holds marker.
func children(t *testing.T, marker string) []string {
	t.Helper()
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, p)
		}
	}
	return out
}

// TestNoChildLeftBehind: after sessions end — normally, after a hang,
// after a crash — no child process is left.
func TestNoChildLeftBehind(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to count processes")
	}
	// Every child is given this file to write its pid to: its path, this
	// test's own, marks the children of this run in the process list, so
	// the tests of the same checkout running at the same time elsewhere
	// are not counted.
	pids := filepath.Join(t.TempDir(), "pids")
	for _, how := range []string{"hang", "crash", "garbage", "wrongid"} {
		start, err := Sessions(misbehaving(t, how) + " " + pids)
		if err != nil {
			t.Fatal(err)
		}
		f, end, _ := start()
		timeout := patience
		if how == "hang" {
			timeout = hangTimeout
		}
		k := oracle.NewChecker(f, oracle.Options{Timeout: timeout})
		for range 3 {
			checkOn(t, k, twoOps(t))
		}
		k.Close()
		end()
	}
	deadline := time.Now().Add(patience)
	for len(children(t, pids)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if b, _ := os.ReadFile(pids); len(b) == 0 {
		t.Fatal("no child wrote its pid: the count below proves nothing")
	}
	if left := children(t, pids); len(left) > 0 {
		t.Fatalf("%d child processes left: %v", len(left), left)
	}
}

// TestFactoryErrorForACommandThatDoesNotRun: a command that cannot start
// is a clear error from the factory (a total finding), not a hang.
func TestFactoryErrorForACommandThatDoesNotRun(t *testing.T) {
	start, err := Sessions("/no/such/sandbox --flag")
	if err != nil {
		t.Fatal(err)
	}
	f, end, _ := start()
	defer end()
	_, err = f(must.Grant(core.GrantSpec{}), refworld.New(scenario.WorldSpec{}))
	if err == nil || !strings.Contains(err.Error(), "/no/such/sandbox") {
		t.Fatalf("factory error %v", err)
	}
	if _, err := Sessions(`python3 "unterminated`); err == nil {
		t.Fatal("an unterminated quote was accepted")
	}
}

// TestHangWhileOpening: a child that hangs in sandbox/open is a hang of
// the build, and the next scenario gets a fresh child, never the one still
// stuck in the abandoned open.
func TestHangWhileOpening(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	start, err := Sessions(misbehaving(t, "hangopen") + " " + pids)
	if err != nil {
		t.Fatal(err)
	}
	f, end, _ := start()
	defer end()
	k := oracle.NewChecker(f, oracle.Options{Timeout: hangTimeout, StartTimeout: 2 * time.Second})
	defer k.Close()
	for i := range 2 {
		got := checkOn(t, k, twoOps(t))
		if len(got) != 1 || !got[0].Hang || got[0].Step != 0 {
			t.Fatalf("scenario %d: %v, want a hang while building", i, got)
		}
	}
	if b, _ := os.ReadFile(pids); strings.Count(string(b), "\n") != 2 {
		t.Fatalf("children started: %q, want 2 (one per scenario: the hung one is not reused)", b)
	}
}

// checkOn judges c on k.
func checkOn(t *testing.T, k *oracle.Checker, c judge.Case) []oracle.Finding {
	t.Helper()
	fs, err := k.Check(c.Scenario, new(oracle.Coverage))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestOneLineIsInert: a child's words quoted in an error are one line, with
// what would move the cursor or clear the screen written as escapes.
func TestOneLineIsInert(t *testing.T) {
	if got, want := oneLine("boom\x1b]0;PWNED\a\x1b[2J\r\nnext\tline\xff"), `boom\x1b]0;PWNED\a\x1b[2J | next`+"\tline"+`\xff`; got != want {
		t.Errorf("oneLine = %q, want %q", got, want)
	}
}

// TestExecWriteThatLeftNothing: a child that answers an allowed write ok
// and writes nothing is judged by what the world holds, whether or not it
// declared stricter fetch refusals: the door answers in its place only
// from its first stricter refusal on.
func TestExecWriteThatLeftNothing(t *testing.T) {
	sc, err := scenario.Parse("drop.sbx", []byte("grant fs_write /d\nfile /d/a old\n\nfs_write /d/a new\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"plain", "stricter"} {
		start, err := Sessions(roleCommand("dropwrites", mode))
		if err != nil {
			t.Fatal(err)
		}
		f, end, err := start()
		if err != nil {
			t.Fatal(err)
		}
		k := oracle.NewChecker(f, oracle.Options{Timeout: patience})
		fs, err := k.Check(sc, new(oracle.Coverage))
		k.Close()
		end()
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 1 || fs[0].Invariant != oracle.VerdictMatchesModel || !strings.Contains(fs[0].Detail, `left "/d/a" holding "old"`) {
			t.Errorf("a %s child that wrote nothing: %v", mode, fs)
		}
	}
}
