package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// ExitInterrupted is the status of a command stopped by SIGINT or SIGTERM
// before its end: never 0, so that CI cannot take an interrupted campaign
// for a pass, and not 1 either, which says the sandbox failed.
const ExitInterrupted = 3

// interruptible returns a context that the first SIGINT or SIGTERM cancels
// (Ctrl-C, timeout(1), CI cancellation and docker stop all send one): the
// campaign then stops, minimizes what is pending for a short bounded time,
// writes, and summarizes. A second signal exits at once with
// ExitInterrupted; every finding written so far is already on disk, each
// written atomically. Call stop when the work is done.
func interruptible(e *env) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-sigs:
			fmt.Fprintf(e.stderr, "\nsbxfuzz: %v: stopping; minimizing and writing what is pending (again to stop at once)\n", s)
			cancel()
		case <-quit:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(e.stderr, "sbxfuzz: %v again: stopping at once; the findings written so far are on disk\n", s)
			e.exit(ExitInterrupted)
		case <-quit:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(quit)
		<-done
		cancel()
	}
}

// timeoutFlag registers --timeout, the op timeout of SPEC §12.
func timeoutFlag(fs *flagSet) *time.Duration {
	return fs.Duration("timeout", oracle.DefaultTimeout, "how long one op (or building a sandbox) may take before it is a hang, a total finding")
}

// checkTimeout refuses a timeout that is not positive.
func checkTimeout(e *env, d time.Duration) bool {
	if d <= 0 {
		errorf(e, "--timeout %v: must be positive", d)
		return false
	}
	return true
}
