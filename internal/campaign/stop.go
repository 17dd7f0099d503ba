package campaign

import (
	"sync"
	"time"
)

// How long each stage of an early end may take, counted from the moment
// the campaign must end. An interrupted campaign (its context cancelled: a
// SIGINT, SIGTERM or SIGHUP) returns within StopTime plus the writing of
// what is left, and waits for its sessions to end until EndTime: so the
// command exits 3 within 2 s however long its ops may take.
const (
	// DrainTime bounds the minimization of what is pending: every
	// minimization stops then, and the finding is written with what it
	// has.
	DrainTime = time.Second
	// StopTime bounds the rest: the checks still running are given up
	// (their scenarios were not found to fail, so nothing found is lost),
	// and what is not minimized by then is written as it is, its header
	// saying so.
	StopTime = 1500 * time.Millisecond
	// EndTime bounds the wait for the sessions to end (children stopped,
	// trees removed) once the checks are over or given up.
	EndTime = 1800 * time.Millisecond
)

// The same stages when a timed campaign's Duration is over: what is
// found gets longer to be minimized, and the oracle's last judgement of a
// minimized hang (which waits out the op timeout) time to end, and the
// campaign ends within DurationEndTime after its Duration, whatever its
// sandbox does.
const (
	DurationDrainTime = 4 * time.Second
	DurationStopTime  = 8 * time.Second
	DurationEndTime   = 9 * time.Second
)

// stopper ends a campaign in bounded time. Each of its three channels is
// closed at its stage's deadline, the earliest of those the triggers set:
// minimize (every minimization stops), hard (checks and minimizations
// still running are given up), last (the wait for sessions to end is given
// up). A campaign that ends by itself triggers none of them, and waits for
// everything as long as it takes. It is safe for concurrent use.
type stopper struct {
	minimize, hard, last                chan struct{}
	closeMinimize, closeHard, closeLast func()

	mu       sync.Mutex
	timers   []*time.Timer
	released bool
}

func newStopper() *stopper {
	s := &stopper{minimize: make(chan struct{}), hard: make(chan struct{}), last: make(chan struct{})}
	// Each stage begins the ones before it, whichever timer fires first.
	s.closeMinimize = sync.OnceFunc(func() { close(s.minimize) })
	s.closeHard = sync.OnceFunc(func() { s.closeMinimize(); close(s.hard) })
	s.closeLast = sync.OnceFunc(func() { s.closeHard(); close(s.last) })
	return s
}

// after sets the stages' deadlines drain, stop and end from now, unless
// earlier ones are set.
func (s *stopper) after(drain, stop, end time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.released {
		return
	}
	s.timers = append(s.timers,
		time.AfterFunc(drain, s.closeMinimize), time.AfterFunc(stop, s.closeHard), time.AfterFunc(end, s.closeLast))
}

// stopping reports whether a stage has begun: minimizations must stop.
func (s *stopper) stopping() bool {
	select {
	case <-s.minimize:
		return true
	default:
		return false
	}
}

// release stops the timers: the campaign is over.
func (s *stopper) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = true
	for _, t := range s.timers {
		t.Stop()
	}
}

// waitOr waits for wg until stage closes, and reports whether wg was done.
func waitOr(wg *sync.WaitGroup, stage <-chan struct{}) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-stage:
		return false
	}
}
