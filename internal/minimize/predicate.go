package minimize

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// A Judge runs the oracle on one scenario, with the options given, and
// returns the findings; a scenario whose grant is invalid has none.
type Judge func(sc *scenario.Scenario, opt oracle.Options) []oracle.Finding

// On returns the Judge that checks scenarios on the sandboxes f builds:
// one session, kept from one scenario to the next.
func On(f core.Factory) Judge {
	return func(sc *scenario.Scenario, opt oracle.Options) []oracle.Finding {
		fs, _ := oracle.Check(f, sc, nil, opt) // an invalid grant: no finding
		return fs
	}
}

// Fresh returns the Judge that starts a session with start for each case
// and ends it after, as 'sbxfuzz replay' does: a sandbox that keeps state
// from one scenario to the next (a process, a server) then meets each case
// as it meets a replay. When stop closes, the session under way is ended
// at once, which stops a sandbox in another process even in the middle of
// an op (the judgement then finds what it finds), and once stop is closed
// no session is started. A session that cannot start, or is not started,
// gives no finding: it is not the sandbox failing the same way.
func Fresh(start func() (core.Factory, func() error, error), stop <-chan struct{}) Judge {
	return func(sc *scenario.Scenario, opt oracle.Options) []oracle.Finding {
		select {
		case <-stop:
			return nil // stopped already: no session is started
		default:
		}
		f, end, err := start()
		if err != nil {
			return nil
		}
		var ended atomic.Bool
		endOnce := sync.OnceValue(func() error { ended.Store(true); return end() })
		judged := make(chan struct{})
		go func() {
			select {
			case <-stop:
				endOnce()
			case <-judged:
			}
		}()
		defer endOnce()
		defer close(judged)
		// Once the session is ended nothing more is built in it: a process
		// or a server started then would outlive the session.
		guarded := func(g core.Grant, w core.World) (core.Sandbox, error) {
			if ended.Load() {
				return nil, errEnded
			}
			return f(g, w)
		}
		return On(guarded)(sc, opt)
	}
}

// errEnded is what a Fresh session builds once it is ended.
var errEnded = errors.New("the minimization stopped: its session is ended")

// Violates returns the predicate "the oracle finds invariant id when the
// sandbox f builds runs the scenario", each op bounded by timeout (0: the
// oracle's default). A candidate whose grant is invalid does not fail.
func Violates(f core.Factory, id oracle.ID, timeout time.Duration) Predicate {
	return ViolatesLike(f, oracle.Finding{Invariant: id}, timeout, 0)
}

// ViolatesLike is Violates for the invariant of target, held to the same
// kind of failure: when target is a hang on an op, a candidate fails only
// by hanging on an op too (a hang while the sandbox is built, which a
// lowered timeout makes of a sandbox slow to start, is another failure,
// and a reproducer of it would not reproduce).
//
// timeout bounds each op; the factory gets start (0: timeout), so that a
// lowered op timeout does not turn a slow start into a hang.
func ViolatesLike(f core.Factory, target oracle.Finding, timeout, start time.Duration) Predicate {
	return JudgedLike(On(f), target, timeout, start)
}

// JudgedLike is ViolatesLike with the cases judged by j.
func JudgedLike(j Judge, target oracle.Finding, timeout, start time.Duration) Predicate {
	return func(sc *scenario.Scenario) bool {
		for _, fd := range j(sc, oracle.Options{Timeout: timeout, StartTimeout: start}) {
			if Like(target, fd) {
				return true
			}
		}
		return false
	}
}

// Like reports whether fd is the same failure as target: the same
// invariant, and for a hang, a hang at the same phase (on an op, or
// before any).
func Like(target, fd oracle.Finding) bool {
	if fd.Invariant != target.Invariant {
		return false
	}
	return !target.Hang || fd.Hang && (fd.Step > 0) == (target.Step > 0)
}
