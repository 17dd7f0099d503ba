package proc

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// markerEnv marks every process of one test's tree, through the
// environment every descendant inherits, whatever its arguments.
const markerEnv = "SBXFUZZ_PROC_TEST_MARKER"

// marked lists the live processes whose environment holds marker.
func marked(marker string) []string {
	var out []string
	want := []byte(markerEnv + "=" + marker + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(d + "/environ")
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		cmdline, _ := os.ReadFile(d + "/cmdline")
		out = append(out, d+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// killMarked kills what a failed test left, so that it does not outlive
// the test run.
func killMarked(marker string) {
	for _, p := range marked(marker) {
		pid, err := strconv.Atoi(strings.TrimPrefix(p[:strings.IndexByte(p, ':')], "/proc/"))
		if err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// orphanBound is how long the test waits for the tree to go: the property
// is two seconds, and the test gives ten so that only a tree that stays is
// a failure, not a loaded machine; it passes as soon as none is left.
const orphanBound = 10 * time.Second

// TestNoOrphanAfterTheHarnessDies: whatever kills the harness, SIGKILL
// included, no process of a child's tree is left — not the child, not a
// descendant in its process group, not one that left it with setsid() and
// was orphaned — under each isolation the system allows.
func TestNoOrphanAfterTheHarnessDies(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc to find the tree's processes in")
	}
	for _, tc := range []struct {
		isolation string
		sig       syscall.Signal
	}{
		{"default", syscall.SIGKILL},
		{"default", syscall.SIGHUP},
		{"userns", syscall.SIGKILL},
		{"reaper", syscall.SIGKILL},
		{"reaper", syscall.SIGHUP},
		{"netns", syscall.SIGKILL},
		{"netns", syscall.SIGHUP},
	} {
		t.Run(tc.isolation+" "+tc.sig.String(), func(t *testing.T) {
			marker := t.TempDir()
			defer killMarked(marker)
			argv := roleArgv("harness", tc.isolation)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), markerEnv+"="+marker)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			said, _ := bufio.NewReader(out).ReadString('\n')
			if strings.HasPrefix(said, "unavailable") {
				cmd.Wait()
				t.Skipf("this isolation is not available here: %s", said)
			}
			if !strings.HasPrefix(said, "ready") {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the harness said %q; stderr: %s", said, stderr.String())
			}
			before := marked(marker)
			// The harness, a supervisor unless direct, the child, its leaf,
			// and the orphaned setsid() leaf.
			if len(before) < 4 {
				t.Fatalf("the tree is not all there: %q", before)
			}
			cmd.Process.Signal(tc.sig)
			cmd.Wait()
			died := time.Now()
			var left []string
			for left = marked(marker); len(left) > 0 && time.Since(died) < orphanBound; left = marked(marker) {
				time.Sleep(10 * time.Millisecond)
			}
			if len(left) > 0 {
				t.Fatalf("under %s, %d of the %d processes are left %v after the harness died: %q",
					strings.TrimSpace(strings.TrimPrefix(said, "ready")), len(left), len(before), orphanBound, left)
			}
			t.Logf("under %s: %d processes, the last gone %v after the harness died",
				strings.TrimSpace(strings.TrimPrefix(said, "ready")), len(before), time.Since(died).Round(time.Millisecond))
		})
	}
}

// TestStartFallsBack: an isolation the system refuses (a PID namespace
// without CAP_SYS_ADMIN) is skipped for the next one, not an error; run
// as root, the namespace is taken.
func TestStartFallsBack(t *testing.T) {
	defer func(was []isolation) { isolationOverride = was }(isolationOverride)
	isolationOverride = []isolation{pidNamespace, direct}
	p, err := Start([]string{"cat"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	want := direct
	if os.Geteuid() == 0 {
		want = pidNamespace
	}
	if p.mode != want {
		t.Fatalf("started under %s, want %s (euid %d)", p.mode, want, os.Geteuid())
	}
}

// TestOwnProc: a child in a PID namespace sees that namespace's /proc,
// not the host's: its own pid there is a small one, and /proc lists only
// the namespace's processes (a sandbox that reads /proc/self, as
// bubblewrap does, finds itself).
func TestOwnProc(t *testing.T) {
	for _, mode := range []isolation{pidNamespace, userNamespace} {
		t.Run(mode.String(), func(t *testing.T) {
			defer func(was []isolation) { isolationOverride = was }(isolationOverride)
			isolationOverride = []isolation{mode}
			p, err := Start([]string{"sh", "-c", "readlink /proc/self; ls /proc | grep -c '^[0-9][0-9]*$'"}, "")
			if err != nil {
				t.Skipf("%s is not available here: %v", mode, err)
			}
			defer p.Kill()
			out, err := io.ReadAll(p.Stdout())
			if err != nil {
				t.Fatal(err)
			}
			words := strings.Fields(string(out))
			if len(words) != 2 {
				t.Fatalf("the child said %q; stderr: %s", out, p.Stderr())
			}
			self, err1 := strconv.Atoi(words[0])
			procs, err2 := strconv.Atoi(words[1])
			if err1 != nil || err2 != nil || self > 10 || procs > 10 {
				t.Errorf("the child's /proc/self is %s and /proc lists %s processes: want the namespace's own, a few", words[0], words[1])
			}
		})
	}
}

// TestOutputOutlivesTheProcess: what a process wrote before it exited is
// read after it exited, until Kill. Its stdout was closed when it exited,
// and a read made after that lost the output (TestOwnProc failed so on a
// busy machine).
func TestOutputOutlivesTheProcess(t *testing.T) {
	p, err := Start([]string{"sh", "-c", "echo last words"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	<-p.Exited()
	if out, err := io.ReadAll(p.Stdout()); err != nil || string(out) != "last words\n" {
		t.Errorf("read after the exit: %q, %v; want its last words", out, err)
	}
}
