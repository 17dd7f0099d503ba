//go:build unix

package cli

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
)

// TestAbortGraceOutlastsTheSessionsWait: after a second signal, the
// command's exit comes well after the campaign's wait for its sessions
// ends, so that the summary is printed before it, and still within the
// second docs/cli.md promises.
func TestAbortGraceOutlastsTheSessionsWait(t *testing.T) {
	if abortGrace-campaign.AbortEndTime < 500*time.Millisecond || abortGrace > time.Second {
		t.Errorf("exit %v after a second signal, the sessions waited for %v: want the exit at least 500ms after, within a second", abortGrace, campaign.AbortEndTime)
	}
}

// TestSecondSignalPrintsTheSummaryBeforeExit: a second signal to a
// campaign whose sessions are slow to end prints the summary, and the
// command does not exit before it has.
func TestSecondSignalPrintsTheSummaryBeforeExit(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	blocked := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	n := 0
	slowEnd := func() error { time.Sleep(3 * time.Second); return nil }
	tg := sut.Target{Name: "slow-end", Start: func() (core.Factory, func() error, error) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first { // the minimizing session
			return m.Factory, slowEnd, nil
		}
		ended := make(chan struct{})
		end := sync.OnceFunc(func() { close(ended) })
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return blockingSandbox{core.NewReference(g, w), ended, func() { once.Do(func() { close(blocked) }) }}, nil
		}
		return f, func() error { slowEnd(); end(); return nil }, nil
	}}
	stderr := newLockedBuffer()
	exits := make(chan bool, 4) // whether the summary was printed by then
	e := &env{stdout: newLockedBuffer(), stderr: stderr, getenv: func(string) string { return "" },
		extra: []sut.Target{tg}, exit: func(int) { exits <- strings.Contains(stderr.String(), "sbxfuzz run: seed") }}
	status := make(chan int, 1)
	go func() {
		status <- runCampaign(e, []string{"--sut", "slow-end", "--workers", "1", "--timeout", "1h", "--duration", "1h", "--out", t.TempDir()})
	}()
	<-blocked
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stderr.String(), "stopping;"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first signal was not heard")
		}
	}
	time.Sleep(2 * sameDelivery) // a second signal, not the same delivery
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	select {
	case code := <-status:
		if code != ExitInterrupted {
			t.Errorf("status %d, want %d", code, ExitInterrupted)
		}
	case <-time.After(time.Minute):
		t.Fatal("the campaign did not return")
	}
	if !strings.Contains(stderr.String(), "sbxfuzz run: seed") {
		t.Errorf("no summary: %q", stderr.String())
	}
	select {
	case summarized := <-exits:
		if !summarized {
			t.Errorf("the command exited before it printed the summary")
		}
	default:
	}
}
