package proc

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"testing"
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
