package campaign

import (
	"fmt"
	"sync"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// DrainTime bounds the minimization of what is pending when a campaign is
// interrupted: all of it is minimized within this long, and what is left
// when the time is up is written as it is.
const DrainTime = 2 * time.Second

// sink minimizes final raw findings on a goroutine of its own, one at a
// time, in the order they came, deduplicates them by their minimized text,
// and writes each to the output directory as soon as it is minimized, so
// that a campaign killed later keeps it. It starts a session of the target
// only when the first finding comes.
type sink struct {
	target sut.Target
	seed   uint64
	out    string // "" keeps findings in memory only
	p      *finding.Pipeline
	queue  chan raw
	hurry  chan struct{} // closed when the campaign is interrupted: minimize briefly
	by     time.Time     // set before hurry is closed: when minimizing must stop
	done   chan struct{}

	// Only the sink's goroutine touches these two.
	seen  map[string]bool // file names of the findings so far
	hangs map[string]bool // the kinds of the ops that hung, in the findings so far

	mu       sync.Mutex // guards findings and err: count reads them from the progress goroutine
	findings []Finding
	err      error // the first failure to start a session or to write
	end      func() error
}

func newSink(target sut.Target, seed uint64, out string, timeout time.Duration) *sink {
	s := &sink{
		target: target, seed: seed, out: out,
		p:     &finding.Pipeline{SUT: target.Name, Timeout: timeout, Adapt: target.Adapt},
		queue: make(chan raw, 1+MaxPerInvariant*numInvariants),
		hurry: make(chan struct{}),
		done:  make(chan struct{}),
		seen:  map[string]bool{},
		hangs: map[string]bool{},
	}
	go s.run()
	return s
}

// put queues a final raw finding. It never blocks: the collector hands
// over at most MaxPerInvariant per invariant.
func (s *sink) put(r raw) { s.queue <- r }

// close waits until everything queued is minimized and written; after
// interrupt, within DrainTime (plus the checks of what is left).
func (s *sink) close() {
	close(s.queue)
	<-s.done
	if s.end != nil {
		s.end()
	}
}

// interrupt makes the minimization in progress and every pending one stop
// DrainTime from now: the campaign is over. It is called once.
func (s *sink) interrupt() {
	s.by = time.Now().Add(DrainTime)
	close(s.hurry)
}

func (s *sink) run() {
	defer close(s.done)
	for r := range s.queue {
		if s.p.Factory == nil && s.err == nil {
			f, end, err := s.target.Start() // a session of its own, for minimizing
			if err != nil {
				s.fail(fmt.Errorf("starting %s to minimize: %w", s.target.Name, err))
			} else {
				s.p.Factory, s.end = f, end
			}
		}
		if s.p.Factory == nil {
			continue
		}
		s.minimize(r)
	}
}

// minimize runs one raw finding through the pipeline and writes it. A hang
// on an op of a kind that hung before is taken for the same finding and
// skipped: minimizing one costs a timeout a candidate.
func (s *sink) minimize(r raw) {
	if r.f.Hang && r.f.Step > 0 {
		kind := r.sc.Steps[r.f.Step-1].Op.Kind
		if s.hangs[kind] {
			return
		}
		s.hangs[kind] = true
	}
	stop := make(chan struct{})
	closeStop := sync.OnceFunc(func() { close(stop) })
	finished := make(chan struct{})
	go func() { // after an interrupt, until s.by at most
		select {
		case <-s.hurry:
		case <-finished:
			return
		}
		t := time.NewTimer(time.Until(s.by))
		defer t.Stop()
		select {
		case <-t.C:
			closeStop()
		case <-finished:
		}
	}()
	p := *s.p
	p.Limits.Stop = stop
	f := p.Process(r.sc, r.f, fmt.Sprintf("seed %d, check %d", s.seed, r.check))
	close(finished)
	closeStop()
	if key := f.FileName(); s.seen[key] {
		return
	} else {
		s.seen[key] = true
	}
	out := Finding{Check: r.check, Finding: f}
	if s.out != "" {
		path, err := p.Write(s.out, f)
		if err != nil {
			s.fail(fmt.Errorf("writing a finding: %w", err))
		}
		out.Path = path
	}
	s.mu.Lock()
	s.findings = append(s.findings, out)
	s.mu.Unlock()
}

func (s *sink) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// count returns how many findings are minimized so far.
func (s *sink) count() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(len(s.findings))
}
