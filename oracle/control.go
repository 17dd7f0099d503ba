package oracle

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
)

// phase is what a check is doing, for the watchdog's words on a hang.
type phase int64

const (
	phaseBuild  phase = iota // the factory is building the watched sandbox
	phaseRun                 // the watched run: step is the op running
	phaseReplay              // the replay: step is the op running
	phaseGrant               // grant-immutable reads the grant
	phaseClose               // the sandboxes are being closed
)

// control is how a Checker watches and stops a check running on its worker
// goroutine. A nil *control is the inline check: no watchdog, nothing to
// stop, and it costs one nil test per op.
type control struct {
	// progress is phase<<32 | step: it changes whenever an op starts, so
	// the watchdog sees a check that moves on as alive.
	progress atomic.Int64
	// stopped is set when the Checker gave up on this check (a hang): the
	// worker runs no further op and calls no observer.
	stopped atomic.Bool
	// mu orders observer calls against the Checker giving up: once stop
	// returns, no observer call is running or will start. It also guards
	// the sandboxes below, so that each is closed once, by whichever side
	// gets to it first.
	mu      sync.Mutex
	running [2]core.Sandbox // the run's and the replay's
	closed  [2]bool
	n       int
	// findings are copies of the check's findings so far, for the
	// Checker to hand out with the hang when it gives up on the check.
	findings []Finding
}

// reuse makes k the control of a new check, for a worker whose last check
// ended (it was not given up on: nothing else holds k).
func (k *control) reuse() {
	k.progress.Store(0)
	k.running, k.closed, k.n = [2]core.Sandbox{}, [2]bool{}, 0
	k.mu.Lock()
	k.findings = k.findings[:0]
	k.mu.Unlock()
}

// found keeps a copy of f, a finding of the check, unless the Checker
// gave up on the check: what the abandoned worker finds after that (a
// replay step cut short by the closing of its sandbox, a door's failure
// once its process was killed) is the harness's doing, not the sandbox's.
func (k *control) found(f Finding) {
	if k == nil {
		return
	}
	k.mu.Lock()
	if !k.stopped.Load() {
		k.findings = append(k.findings, f)
	}
	k.mu.Unlock()
}

// foundSoFar returns a copy of the findings the check made so far.
func (k *control) foundSoFar() []Finding {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.findings)
}

func (k *control) at(p phase, step int) {
	if k != nil {
		k.progress.Store(int64(p)<<32 | int64(step))
	}
}

// halted reports whether the check must stop: the Checker gave up on it.
func (k *control) halted() bool { return k != nil && k.stopped.Load() }

// built records a sandbox the check built, so a hang can close it. A
// sandbox built after the Checker gave up (a slow factory) is closed at
// once: nobody else will.
func (k *control) built(sb core.Sandbox) {
	if k == nil {
		return
	}
	k.mu.Lock()
	i := k.n
	if i < len(k.running) {
		k.running[i] = sb
		k.n++
	}
	stopped := k.stopped.Load()
	k.mu.Unlock()
	if stopped && i < len(k.running) {
		k.close(i)
	}
}

// observe calls fn with r unless the check was given up on.
func (k *control) observe(fn func(engine.StepReport), r engine.StepReport) {
	if k == nil {
		fn(r)
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.stopped.Load() {
		fn(r)
	}
}

// stop gives up on the check; the Checker then closes its sandboxes.
func (k *control) stop() {
	k.mu.Lock()
	k.stopped.Store(true)
	k.mu.Unlock()
}

// close closes the i-th sandbox the check built, unless that was done
// already: the worker (when the check ends) and the Checker (on a hang)
// may both try.
func (k *control) close(i int) {
	k.mu.Lock()
	if i >= k.n || k.closed[i] {
		k.mu.Unlock()
		return
	}
	k.closed[i] = true
	sb := k.running[i]
	k.mu.Unlock()
	closeSandbox(sb) // an error closing is not a verdict on the scenario
}

// closeAll closes every sandbox the check built, once each.
func (k *control) closeAll() {
	for i := range k.running {
		k.close(i)
	}
}

// closeSandbox closes sb when it is an io.Closer, turning a panic into an
// error.
func closeSandbox(sb core.Sandbox) (err error) {
	c, ok := sb.(io.Closer)
	if !ok {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("Close panicked: %v", p)
		}
	}()
	return c.Close()
}
