//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
)

// lockedBuffer is a bytes.Buffer safe to write from the signal goroutine
// while the test reads it (newLockedBuffer).
type lockedBuffer struct {
	lockedWriter
	b bytes.Buffer
}

func newLockedBuffer() *lockedBuffer {
	l := &lockedBuffer{}
	l.w = &l.b
	return l
}

func (l *lockedBuffer) String() string {
	l.Lock()
	defer l.Unlock()
	return l.b.String()
}

// stuckMinimizer is a --sut whose first session (the one worker's) is the
// raw-prefix mutant, and whose later ones (the minimizer's) build
// sandboxes whose every op blocks until their session ends: each finding's
// minimization is stuck, as on a server that stopped answering, and with
// --timeout 1h never ends by itself while the test waits.
type stuckMinimizer struct {
	started atomic.Int64
	blocked chan struct{} // closed when a minimizer's op first blocks
	once    sync.Once
}

func (s *stuckMinimizer) target(t *testing.T) sut.Target {
	m, ok := mutants.Lookup("raw-prefix")
	if !ok {
		t.Fatal("no raw-prefix mutant")
	}
	return sut.Target{Name: "stuck-minimizer", Start: func() (core.Factory, func() error, error) {
		if s.started.Add(1) == 1 {
			return m.Factory, func() error { return nil }, nil
		}
		ended := make(chan struct{})
		end := sync.OnceFunc(func() { close(ended) })
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return blockingSandbox{core.NewReference(g, w), ended, func() { s.once.Do(func() { close(s.blocked) }) }}, nil
		}
		return f, func() error { end(); return nil }, nil
	}}
}

// blockingSandbox is the reference, except that each op waits until its
// session ends.
type blockingSandbox struct {
	*core.Reference
	ended   chan struct{}
	blocked func()
}

func (b blockingSandbox) Run(op core.Op) core.Result {
	b.blocked()
	<-b.ended
	return b.Reference.Run(op)
}

// stopStuckCampaign runs a campaign against a stuck minimizer, in this
// process, sends it sigs once its minimization is stuck (the next one once
// the previous one was heard), and returns its status, its stderr and its
// output directory. It fails the test if the campaign has not returned
// within patience: stuck, it would wait out --timeout 1h.
func stopStuckCampaign(t *testing.T, sigs ...syscall.Signal) (int, string, string, time.Duration) {
	t.Helper()
	s := &stuckMinimizer{blocked: make(chan struct{})}
	out := t.TempDir()
	stderr := newLockedBuffer()
	e := &env{stdout: newLockedBuffer(), stderr: stderr, getenv: func(string) string { return "" },
		extra: []sut.Target{s.target(t)}, exit: func(int) {}}
	status := make(chan int, 1)
	go func() {
		status <- runCampaign(e, []string{"--sut", "stuck-minimizer", "--workers", "1", "--timeout", "1h", "--duration", "1h", "--out", out})
	}()
	select {
	case <-s.blocked:
	case <-time.After(patience):
		t.Fatalf("no minimization started within %v", patience)
	}
	start := time.Now()
	for i, sig := range sigs {
		syscall.Kill(os.Getpid(), sig)
		for deadline := time.Now().Add(patience); strings.Count(stderr.String(), "sbxfuzz: ") <= i && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	select {
	case st := <-status:
		return st, stderr.String(), out, time.Since(start)
	case <-time.After(patience):
		t.Fatalf("%v: the campaign had not returned %v later\n%s", sigs, patience, stderr)
	}
	return 0, "", "", 0
}

// checkWrittenAsFound checks that out holds the findings of a campaign
// that stopped before it could minimize them: each says so in its header,
// and fails again on the mutant.
func checkWrittenAsFound(t *testing.T, out, stderr string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "*.sbx"))
	if len(files) == 0 {
		t.Fatalf("the finding whose minimization was stuck is lost\n%s", stderr)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "# not minimized: the campaign stopped first") {
			t.Errorf("%s: the header does not say it is not minimized:\n%s", f, src)
		}
		if st, _, errs := run(t, "replay", "--sut", "mutant:raw-prefix", f); st != ExitFinding {
			t.Errorf("%s: replay on the mutant: status %d, want %d\n%s", f, st, ExitFinding, errs)
		}
	}
	if !strings.Contains(stderr, "not minimized: the campaign stopped first") {
		t.Errorf("the summary does not say what was not minimized:\n%s", stderr)
	}
}

// TestEverySignalStopsInBoundedTime: SIGINT, SIGTERM and SIGHUP each stop a
// campaign with ExitInterrupted within seconds, even while a minimization
// that would take an hour is under way; what was found is on disk,
// written as it was found, saying so. (SIGHUP unhandled would kill the
// test binary.)
func TestEverySignalStopsInBoundedTime(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		st, stderr, out, took := stopStuckCampaign(t, sig)
		t.Logf("%v: exit %d %v after the signal", sig, st, took)
		if st != ExitInterrupted || !strings.Contains(stderr, "(interrupted)") {
			t.Errorf("%v: status %d, want %d and an interrupted summary\n%s", sig, st, ExitInterrupted, stderr)
		}
		checkWrittenAsFound(t, out, stderr)
	}
}

// TestSecondSignalKeepsWhatIsFound: a second signal stops the campaign at
// once, without waiting for campaign.StopTime as the first one would, and
// without dropping what was found and not minimized yet: it is written as
// it was found. (Stopping takes milliseconds: the bound is far above.)
func TestSecondSignalKeepsWhatIsFound(t *testing.T) {
	st, stderr, out, took := stopStuckCampaign(t, syscall.SIGTERM, syscall.SIGHUP)
	t.Logf("exit %d %v after the first signal", st, took)
	if st != ExitInterrupted || !strings.Contains(stderr, "hangup again: stopping at once") {
		t.Errorf("status %d, want %d, after a second signal heard\n%s", st, ExitInterrupted, stderr)
	}
	if took >= campaign.StopTime {
		t.Errorf("stopped %v after two signals: not at once, but as after one", took)
	}
	checkWrittenAsFound(t, out, stderr)
}

// blockingTarget is a --sut whose sandboxes block in every op until their
// session ends; blocked is closed when one first does.
func blockingTarget(blocked chan struct{}) sut.Target {
	var once sync.Once
	return sut.Target{Name: "blocking", Start: func() (core.Factory, func() error, error) {
		ended := make(chan struct{})
		end := sync.OnceFunc(func() { close(ended) })
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return blockingSandbox{core.NewReference(g, w), ended, func() { once.Do(func() { close(blocked) }) }}, nil
		}
		return f, func() error { end(); return nil }, nil
	}}
}

// TestCommandsExit3OnSignal: replay, minimize and import, stuck in an op
// that would take an hour, end their session and exit with
// ExitInterrupted on SIGINT, SIGTERM or SIGHUP (each would kill the test
// binary if it were not handled), and the session's end lets the op
// return.
func TestCommandsExit3OnSignal(t *testing.T) {
	dir := t.TempDir()
	sc := writeFile(t, dir, "a.sbx", "grant fs_read /work/\nfile /work/a x\n\nfs_read /work/a\n")
	for i, c := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"replay", "--timeout", "1h", sc}},
		{syscall.SIGTERM, []string{"minimize", "--timeout", "1h", sc}},
		{syscall.SIGHUP, []string{"import", "--layout", "raw", "--timeout", "1h", "--out", dir, sc}},
	} {
		blocked := make(chan struct{})
		exited := make(chan int, 1)
		e := &env{stdout: newLockedBuffer(), stderr: newLockedBuffer(), getenv: func(string) string { return "" },
			extra: []sut.Target{blockingTarget(blocked)}, exit: func(c int) { exited <- c }}
		returned := make(chan int, 1)
		go func() { returned <- runIn(e, append(c.args, "--sut", "blocking")) }()
		select {
		case <-blocked:
		case <-time.After(patience):
			t.Fatalf("%d: %v: no op started within %v", i, c.args, patience)
		}
		syscall.Kill(os.Getpid(), c.sig)
		select {
		case st := <-exited:
			if st != ExitInterrupted {
				t.Errorf("%v on %v: exit %d, want %d", c.sig, c.args, st, ExitInterrupted)
			}
		case <-time.After(patience):
			t.Fatalf("%v on %v: no exit within %v", c.sig, c.args, patience)
		}
		select {
		case <-returned: // the ended session let the op return
		case <-time.After(patience):
			t.Fatalf("%v on %v: the op did not return once the session ended", c.sig, c.args)
		}
	}
}

// runIn runs the command args name with env e.
func runIn(e *env, args []string) int {
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(e, args[1:])
		}
	}
	panic("no command " + args[0])
}
