package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// ExitInterrupted is the status of a command stopped by SIGINT, SIGTERM
// or SIGHUP before its end: never 0, so that CI cannot take an interrupted
// campaign for a pass, and not 1 either, which says the sandbox failed.
const ExitInterrupted = 3

// stopSignals are the signals that stop a command cleanly: Ctrl-C,
// timeout(1), CI cancellation and docker stop send SIGINT or SIGTERM; a
// closed terminal or ssh session sends SIGHUP.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// After the first signal, how long the command may still run before it is
// stopped as by a second one (a campaign ends within campaign.EndTime by
// itself: this only bounds what no one foresaw), and how long a second
// signal waits for what is found to be written, and the summary printed,
// before exiting: the campaign's wait for its sessions
// (campaign.AbortEndTime) and summaryTime after it, so that a session slow
// to end does not make the exit race the summary.
const (
	backstopTime = 2 * time.Second
	summaryTime  = 650 * time.Millisecond
	abortGrace   = campaign.AbortEndTime + summaryTime
)

// sameDelivery is how soon after the first a signal of the same kind is
// the same delivery, not a second signal: timeout(1) sends its signal to
// the command and then to the command's process group, the command
// included, and a campaign run under it must not take that for a user's
// second Ctrl-C.
const sameDelivery = 25 * time.Millisecond

// interruptible returns a context that the first SIGINT, SIGTERM or
// SIGHUP cancels: a campaign then stops drawing checks, minimizes what is
// pending for campaign.DrainTime, writes everything found, and summarizes,
// within campaign.EndTime whatever its sandbox does. A second signal (or
// the first one's backstopTime running out) closes abort: a campaign then
// writes what is found and not yet minimized as it was found, and returns
// at once; the command exits with ExitInterrupted once it has, or after
// abortGrace at most. Call stop when the work is done; it may be called
// again.
func interruptible(e *env) (ctx context.Context, abort <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	aborted := make(chan struct{})
	stopWatching := watchSignals(2, watchInterrupts(e, cancel, aborted))
	return ctx, aborted, sync.OnceFunc(func() {
		stopWatching()
		cancel()
	})
}

// watchInterrupts is interruptible's watch: the first signal calls
// cancel; a second, or the first one's backstopTime running out, closes
// aborted, and exits after abortGrace unless quit closes first.
func watchInterrupts(e *env, cancel func(), aborted chan struct{}) func(sigs <-chan os.Signal, quit <-chan struct{}) {
	return func(sigs <-chan os.Signal, quit <-chan struct{}) {
		var first os.Signal
		select {
		case first = <-sigs:
			fmt.Fprintf(e.stderr, "\nsbxfuzz: %v: stopping; minimizing and writing what is found (again to stop at once)\n", first)
			cancel()
		case <-quit:
			return
		}
		at := time.Now()
		backstop := time.NewTimer(backstopTime)
		defer backstop.Stop()
	wait:
		for {
			select {
			case s := <-sigs:
				if s == first && time.Since(at) < sameDelivery {
					continue // the first signal again, from the same sender
				}
				fmt.Fprintf(e.stderr, "sbxfuzz: %v again: stopping at once; what is found and not minimized is written as it was found\n", s)
				break wait
			case <-backstop.C:
				fmt.Fprintf(e.stderr, "sbxfuzz: still running %v after the signal: stopping at once\n", backstopTime)
				break wait
			case <-quit:
				return
			}
		}
		close(aborted)
		grace := time.NewTimer(abortGrace)
		defer grace.Stop()
		select {
		case <-quit:
		case <-grace.C:
			e.exit(ExitInterrupted)
		}
	}
}

// watchSignals runs watch on a goroutine of its own with a channel of the
// stop signals (buffered for n) and one that closes when the returned stop
// is called; stop stops the signals and waits for watch to return.
func watchSignals(n int, watch func(sigs <-chan os.Signal, quit <-chan struct{})) (stop func()) {
	sigs := make(chan os.Signal, n)
	signal.Notify(sigs, stopSignals...)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		watch(sigs, quit)
	}()
	return func() {
		signal.Stop(sigs)
		close(quit)
		<-done
	}
}

// endWait bounds how long a command stopped by a signal waits for its
// session to end (children stopped, trees removed) before it exits.
const endWait = time.Second

// exitOnSignal makes the first SIGINT, SIGTERM or SIGHUP stop a command
// that runs scenarios one at a time (replay, minimize, import): its
// session is ended, for endWait at most (a sandbox stuck in an op returns
// once its process is stopped), and the command exits with
// ExitInterrupted. What it wrote so far is kept: each file is written
// atomically. end must be safe to call twice (sync.OnceValue); call stop
// when the work is done.
func exitOnSignal(e *env, end func() error) (stop func()) {
	return watchSignals(1, func(sigs <-chan os.Signal, quit <-chan struct{}) {
		select {
		case s := <-sigs:
			fmt.Fprintf(e.stderr, "\nsbxfuzz: %v: stopping\n", s)
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				end()
			}()
			t := time.NewTimer(endWait)
			defer t.Stop()
			select {
			case <-ended:
			case <-t.C:
			}
			e.exit(ExitInterrupted)
		case <-quit:
		}
	})
}

// startSession starts a session of t for a command that runs scenarios one
// at a time, stopped as exitOnSignal says: call stop when done, which ends
// the session too.
func startSession(e *env, t sut.Target) (f core.Factory, stop func(), err error) {
	f, stop, _, err = startCountedSession(e, t)
	return f, stop, err
}

// startCountedSession is startSession, with a function that reads what
// the session counted beside its checks (the zero Tally for a door that
// counts nothing).
func startCountedSession(e *env, t sut.Target) (f core.Factory, stop func(), tally func() door.Tally, err error) {
	var end func() error
	if t.StartCounted != nil {
		f, end, tally, err = t.StartCounted()
	} else {
		f, end, err = t.Start()
		tally = func() door.Tally { return door.Tally{} }
	}
	if err != nil {
		return nil, nil, nil, err
	}
	endOnce := sync.OnceValue(end)
	unwatch := exitOnSignal(e, endOnce)
	return f, func() {
		unwatch()
		endOnce()
	}, tally, nil
}

// timeoutFlag registers --timeout, the op timeout of SPEC §12.
//
// It also registers --start-timeout, kept in e: every command with
// --timeout takes --sut, and e.target hands both to the doors.
func timeoutFlag(e *env, fs *flagSet) *time.Duration {
	fs.DurationVar(&e.startTimeout, "start-timeout", DefaultStartTimeout,
		"how long starting a sandbox may take — an exec: child or an mcp: server started and through its handshake, a proxy: proxy started and listening, a sandbox built — before it is a hang; an mcp: server or a proxy: proxy that does not start within it is a setup error (exit 2)")
	fs.DurationVar(&e.timeout, "timeout", oracle.DefaultTimeout,
		"how long one op may take before it is a hang, a total finding (on mcp:, each call of the server; on proxy:, each fetch through the proxy; a hang there is judged once more on a fresh server or proxy before it counts)")
	return &e.timeout
}

// oracleOptions are the oracle's timeouts as --timeout and
// --start-timeout set them.
func (e *env) oracleOptions() oracle.Options {
	return oracle.Options{Timeout: e.timeout, StartTimeout: e.startTimeout}
}

// DefaultStartTimeout is --start-timeout's default: long, since a sandbox
// that cannot start in time cannot be judged at all, and a real server
// on a busy machine has been seen to take 18 s to answer initialize.
const DefaultStartTimeout = 60 * time.Second

// checkTimeout refuses a timeout, or a start timeout, that is not
// positive.
func checkTimeout(e *env, d time.Duration) bool {
	switch {
	case d <= 0:
		errorf(e, "--timeout %v: must be positive", d)
		return false
	case e.startTimeout <= 0:
		errorf(e, "--start-timeout %v: must be positive", e.startTimeout)
		return false
	}
	return true
}
