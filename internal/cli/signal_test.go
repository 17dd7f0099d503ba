//go:build unix

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildSbxfuzz builds the command line into a temporary directory.
func buildSbxfuzz(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "sbxfuzz")
	cmd := exec.Command("go", "build", "-o", bin, "../../cmd/sbxfuzz")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startCampaign starts a long campaign against raw-prefix in a process
// group of its own, so that nothing it starts can outlive the test.
func startCampaign(t *testing.T, bin, out string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "run", "--sut", "mutant:raw-prefix", "--duration", "10m", "--out", out)
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, &stderr
}

// waitFor waits up to d for the command to end, and returns its status,
// or -1 after killing it.
func waitFor(t *testing.T, cmd *exec.Cmd, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(d):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return -1
	}
}

// patience bounds each wait of these tests for a process to do something
// it does within seconds on a loaded machine: it is only reached when the
// test fails, so it is generous.
const patience = 2 * time.Minute

// waitForFindings waits until out holds a finding, or fails.
func waitForFindings(t *testing.T, out string) {
	t.Helper()
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if files, _ := filepath.Glob(filepath.Join(out, "*.sbx")); len(files) > 0 {
			return
		}
	}
	t.Fatalf("no finding was written within %v", patience)
}

// TestSIGTERMStopsCleanly: SIGTERM (what timeout, CI cancellation and docker
// stop send) stops a campaign the way Ctrl-C does: it exits 3 with its
// summary, long before its ten minutes are up, and every finding it wrote
// replays, failing on the mutant and passing on the reference. No temp
// file is left.
func TestSIGTERMStopsCleanly(t *testing.T) {
	bin := buildSbxfuzz(t)
	out := t.TempDir()
	cmd, stderr := startCampaign(t, bin, out)
	waitForFindings(t, out)
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, cmd, patience)
	took := time.Since(start)
	if st != ExitInterrupted {
		t.Fatalf("after SIGTERM: status %d after %v, want %d\n%s", st, took, ExitInterrupted, stderr)
	}
	if !strings.Contains(stderr.String(), "(interrupted)") || !strings.Contains(stderr.String(), "terminated: stopping") {
		t.Errorf("no summary of an interrupted run:\n%s", stderr)
	}
	t.Logf("stopped %v after SIGTERM", took)
	files, _ := filepath.Glob(filepath.Join(out, "*.sbx"))
	if len(files) == 0 {
		t.Fatal("no findings on disk")
	}
	for _, f := range files {
		if st := exec.Command(bin, "replay", "--sut", "mutant:raw-prefix", f).Run(); exitCode(st) != ExitFinding {
			t.Errorf("%s does not fail on the mutant: %v", f, st)
		}
		if st := exec.Command(bin, "replay", f).Run(); st != nil {
			t.Errorf("%s fails on the reference: %v", f, st)
		}
	}
	all, _ := os.ReadDir(out)
	if len(all) != len(files) {
		t.Errorf("%d entries in the output directory for %d findings (a temp file left?)", len(all), len(files))
	}
}

// TestSecondSignalStopsAtOnce: the first SIGINT, SIGTERM or SIGHUP
// cancels the context (the campaign drains); the second closes abort (the
// campaign writes what it found as it is) and exits with ExitInterrupted
// soon after, whatever is still running.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		exited := make(chan int, 1)
		var errb bytes.Buffer
		e := &env{stdout: &bytes.Buffer{}, stderr: &errb, getenv: func(string) string { return "" }, exit: func(c int) { exited <- c }}
		ctx, abort, stop := interruptible(e)
		syscall.Kill(os.Getpid(), sig)
		select {
		case <-ctx.Done():
		case <-time.After(patience):
			t.Fatalf("%v: the context was not cancelled", sig)
		}
		select {
		case c := <-exited:
			t.Fatalf("%v: exited (%d) on the first signal", sig, c)
		case <-abort:
			t.Fatalf("%v: aborted on the first signal", sig)
		case <-time.After(50 * time.Millisecond):
		}
		syscall.Kill(os.Getpid(), sig)
		select {
		case <-abort:
		case <-time.After(patience):
			t.Fatalf("%v twice: abort was not closed", sig)
		}
		select {
		case c := <-exited:
			if c != ExitInterrupted {
				t.Errorf("%v twice: exit %d, want %d", sig, c, ExitInterrupted)
			}
		case <-time.After(patience):
			t.Fatalf("%v twice: no exit", sig)
		}
		stop()
		if !strings.Contains(errb.String(), "again: stopping at once") {
			t.Errorf("%v: said %q", sig, errb.String())
		}
	}
}

// TestSignalToTheGroupIsOne: the same signal twice at once, as timeout(1)
// sends it to the command and then to its process group, is one signal:
// the campaign drains and minimizes what it found; the same signal later
// is a second one, and stops it at once.
func TestSignalToTheGroupIsOne(t *testing.T) {
	exited := make(chan int, 1)
	var errb bytes.Buffer
	e := &env{stdout: &bytes.Buffer{}, stderr: &errb, getenv: func(string) string { return "" }, exit: func(c int) { exited <- c }}
	cancelled, aborted := make(chan struct{}), make(chan struct{})
	sigs, quit := make(chan os.Signal, 3), make(chan struct{})
	sigs <- syscall.SIGTERM
	sigs <- syscall.SIGTERM
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchInterrupts(e, sync.OnceFunc(func() { close(cancelled) }), aborted)(sigs, quit)
	}()
	<-cancelled
	select {
	case <-aborted:
		t.Fatalf("aborted on one signal sent twice at once: %q", errb.String())
	case <-time.After(10 * sameDelivery):
	}
	sigs <- syscall.SIGTERM
	select {
	case <-aborted:
	case <-time.After(patience):
		t.Fatal("a second signal later did not abort")
	}
	close(quit)
	<-done
	if n := strings.Count(errb.String(), "again: stopping at once"); n != 1 {
		t.Errorf("said %q", errb.String())
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// procsRunning lists the processes whose program is path: their first
// argument is path. A match anywhere in the command line would count the
// harness itself (its --sut names the child) and, for an instant, each of
// its forks that has not yet run its new program.
func procsRunning(path string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if argv0, _, _ := strings.Cut(string(b), "\x00"); argv0 == path {
			out = append(out, p)
		}
	}
	return out
}

// TestNoChildOutlivesTheHarness: the children of a campaign against
// --sut exec: (sbxfuzz serve, here) are gone after the harness ends, by
// SIGTERM (shut down) or by SIGKILL (the parent-death signal).
func TestNoChildOutlivesTheHarness(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc to count processes")
	}
	bin := buildSbxfuzz(t)
	child := filepath.Join(t.TempDir(), "sbxfuzz-child") // a name of its own, to count its processes
	if err := os.Link(bin, child); err != nil {
		t.Fatal(err)
	}
	const workers = 2
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		cmd := exec.Command(bin, "run", "--sut", "exec:"+child+" serve", "--workers", strconv.Itoa(workers), "--duration", "10m", "--out", t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		n := 0
		for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if n = len(procsRunning(child)); n >= workers {
				break
			}
		}
		if n < workers {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: %d children running, want one per worker (%d)", sig, n, workers)
		}
		cmd.Process.Signal(sig)
		cmd.Wait()
		deadline := time.Now().Add(patience)
		for len(procsRunning(child)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if left := procsRunning(child); len(left) > 0 {
			t.Fatalf("after %v to the harness, %d children are left", sig, len(left))
		}
	}
}
