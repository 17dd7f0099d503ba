package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func needPython(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
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

func twoOps(t *testing.T) oracle.Case {
	sc, err := scenario.Parse("two.sbx", []byte("grant fs_read /work/\nfs_read /work/a\nfs_read /work/b\n"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := oracle.NewCase(sc)
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
		{"crash", "the sandbox process exited"},
		{"hang", "did not return within"},
		{"garbage", `not a JSON-RPC 2.0 message: "hello, world"`},
		{"wrongid", "a response with id 104, want 4"},
		{"error", "answered with an error: -1 nope"},
		{"unknownkind", `a result of kind "teleport"`},
		{"huge", "a line longer than the protocol's limit"},
		{"outofturn", "a world request (world/read) when none may come"},
	} {
		t.Run(tc.how, func(t *testing.T) {
			start, err := Sessions(misbehaving(t, tc.how))
			if err != nil {
				t.Fatal(err)
			}
			f, end, _ := start()
			defer end()
			timeout := 3 * time.Second // a 9 MiB line takes a while to write
			if tc.how == "hang" {
				timeout = 300 * time.Millisecond
			}
			k := oracle.NewChecker(f, oracle.Options{Timeout: timeout})
			defer k.Close()
			got := k.Check(twoOps(t), new(oracle.Coverage))
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
			again := k.Check(twoOps(t), new(oracle.Coverage))
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
	for _, how := range []string{"hang", "crash", "garbage", "wrongid"} {
		start, err := Sessions(misbehaving(t, how))
		if err != nil {
			t.Fatal(err)
		}
		f, end, _ := start()
		k := oracle.NewChecker(f, oracle.Options{Timeout: 200 * time.Millisecond})
		for range 3 {
			k.Check(twoOps(t), new(oracle.Coverage))
		}
		k.Close()
		end()
	}
	// The script's absolute path is this checkout's own: another checkout's
	// tests, running at the same time, are not counted.
	script, _ := filepath.Abs(filepath.Join("testdata", "misbehave.py"))
	deadline := time.Now().Add(2 * time.Second)
	for len(children(t, script)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := children(t, script); len(left) > 0 {
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
	_, err = f(core.MustGrant(core.GrantSpec{}), core.NewWorld(core.WorldSpec{}))
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
	k := oracle.NewChecker(f, oracle.Options{Timeout: 300 * time.Millisecond, StartTimeout: 2 * time.Second})
	defer k.Close()
	for i := range 2 {
		got := k.Check(twoOps(t), new(oracle.Coverage))
		if len(got) != 1 || !got[0].Hang || got[0].Step != 0 {
			t.Fatalf("scenario %d: %v, want a hang while building", i, got)
		}
	}
	if b, _ := os.ReadFile(pids); strings.Count(string(b), "\n") != 2 {
		t.Fatalf("children started: %q, want 2 (one per scenario: the hung one is not reused)", b)
	}
}
