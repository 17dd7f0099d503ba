package proc

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// isOurChild reports whether pid is, as /proc shows it now, a child of
// the harness, alive or not yet reaped: its number is then still its own.
func isOurChild(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) state ppid ...": comm may hold anything, ")" too.
	fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	return len(fields) > 1 && string(fields[1]) == strconv.Itoa(os.Getpid())
}

// TestNoKillOfAReapedGroup: a process's group is killed as the process
// exits, while the process, unreaped, keeps the group's number its own;
// Kill of a process that exited and was waited for signals no group at
// all. It signalled the number long after the reap, when the number may
// be another process group's, which the SIGKILL then took.
func TestNoKillOfAReapedGroup(t *testing.T) {
	for _, mode := range []isolation{direct, reaper} {
		t.Run(mode.String(), func(t *testing.T) {
			defer func(was []isolation) { isolationOverride = was }(isolationOverride)
			isolationOverride = []isolation{mode}
			defer func(was func(int)) { groupKillOverride = was }(groupKillOverride)
			var mu sync.Mutex
			var ours, stale int
			groupKillOverride = func(pgid int) {
				mu.Lock()
				if isOurChild(pgid) {
					ours++
				} else {
					stale++
				}
				mu.Unlock()
				killGroup(pgid)
			}
			p, err := Start([]string{"sh", "-c", "exit 0"}, "")
			if err != nil {
				t.Skipf("%s is not available here: %v", mode, err)
			}
			<-p.Exited()
			p.Kill()
			mu.Lock()
			defer mu.Unlock()
			if stale > 0 {
				t.Errorf("%d kills of the group of a process already reaped", stale)
			}
			if ours == 0 {
				t.Error("the group was not killed as the process exited")
			}
		})
	}
}

// killBound is how long a test waits for a killed tree to go: only a
// tree that stays fails it, not a loaded machine.
const killBound = time.Minute

// TestKillTakesTheTree: Kill takes the child and every descendant the
// isolation covers: under a supervisor, the one that left the group with
// setsid() too (the supervisor kills it on SIGTERM); in the child's own
// process group, the one that stayed in the group.
func TestKillTakesTheTree(t *testing.T) {
	for _, tc := range []struct {
		mode isolation
		role string
		want int // processes of the tree that must be there before the kill
	}{
		{reaper, "tree", 4},      // the supervisor, the child, its leaf, the setsid() leaf
		{direct, "grouptree", 2}, // the child and its leaf in its group
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			defer func(was []isolation) { isolationOverride = was }(isolationOverride)
			isolationOverride = []isolation{tc.mode}
			marker := t.TempDir()
			defer killMarked(marker)
			t.Setenv(markerEnv, marker)
			p, err := Start(roleArgv(tc.role), "")
			if err != nil {
				t.Skipf("%s is not available here: %v", tc.mode, err)
			}
			if line, _ := bufio.NewReader(p.Stdout()).ReadString('\n'); line != "ready\n" {
				p.Kill()
				t.Fatalf("the child said %q; stderr: %s", line, p.Stderr())
			}
			if before := marked(marker); len(before) < tc.want {
				p.Kill()
				t.Fatalf("the tree is not all there: %q", before)
			}
			p.Kill()
			var left []string
			for killed := time.Now(); time.Since(killed) < killBound; time.Sleep(20 * time.Millisecond) {
				if left = marked(marker); len(left) == 0 {
					return
				}
			}
			t.Fatalf("left %v after Kill: %q", killBound, left)
		})
	}
}
