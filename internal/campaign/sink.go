package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/minimize"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// sink minimizes final raw findings on a goroutine of its own, one at a
// time, in the order they came, deduplicates them by their minimized text,
// and writes each to the output directory as soon as it is minimized, so
// that a campaign killed later keeps it. It starts a session of the target
// only when the first finding comes. When the campaign stops early, every
// minimization stops at the stopper's minimize stage, and at its hard
// stage the sink gives up: what is still queued or being minimized is
// written as it was found, unminimized.
type sink struct {
	target sut.Target
	seed   uint64
	out    string // "" keeps findings in memory only
	stop   *stopper
	done   chan struct{} // closed when the sink's goroutine returns

	// Only the sink's goroutine touches p (its Factory is the session's);
	// as, never modified, writes findings and makes them as found.
	p, as *finding.Pipeline
	// written is Config.Written, called with each finding recorded.
	written func(Finding)
	// first says the campaign stops at its first finding (StopAtFirst):
	// once a finding that counts is recorded, the rest are dropped, and
	// confirmed is told of each hang judged again that counts, so that
	// the campaign ends there.
	first     bool
	confirmed func(check int)
	// released is told of each hang judged again that does not count, so
	// that the places it took among the findings kept are free again.
	released func(r raw)

	mu       sync.Mutex // guards everything below
	wake     *sync.Cond // on mu: a raw finding was queued, or the sink closed
	queue    []raw
	current  *raw            // the raw finding being minimized, nil when none
	closed   bool            // nothing more will be queued
	gaveUp   bool            // the goroutine must write nothing more
	seen     map[string]bool // the findings recorded, by Finding.Key
	hangs    map[string]bool // the kinds of the ops that hung, in the findings so far
	findings []Finding
	// unconfirmed counts the hangs a fresh session answered in time
	// (confirmHang): not findings.
	unconfirmed int
	// currentConfirmed says the hang being minimized (current) was
	// confirmed; under mu.
	currentConfirmed bool
	// decided says a finding that counts was recorded, under first.
	decided bool
	err     error // the first failure to start the minimizing session or to write
	end     func() error
}

func newSink(target sut.Target, program string, seed uint64, out string, stop *stopper, timeout, start time.Duration) *sink {
	s := &sink{
		target: target, seed: seed, out: out, stop: stop,
		p: &finding.Pipeline{SUT: target.Name, Flags: target.Flags, Program: program, Timeout: timeout, StartTimeout: start, Adapt: target.Adapt, Start: target.Start,
			Limits: minimize.Limits{Stop: stop.minimize}},
		as:   &finding.Pipeline{SUT: target.Name, Flags: target.Flags, Program: program, Timeout: timeout, StartTimeout: start, Limits: minimize.Limits{Stop: closedChan}},
		done: make(chan struct{}), seen: map[string]bool{}, hangs: map[string]bool{},
	}
	s.wake = sync.NewCond(&s.mu)
	go s.run()
	return s
}

// put queues a final raw finding; it never blocks. After close it is a
// mistake, and after giveUp the finding is dropped.
func (s *sink) put(r raw) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaveUp {
		return
	}
	s.queue = append(s.queue, r)
	s.wake.Signal()
}

// close waits until everything queued is minimized and written, or until
// the stopper's hard stage, when it gives up and writes what is left as it
// was found. It then ends the sink's session, waiting for that until the
// last stage at most.
func (s *sink) close() {
	s.mu.Lock()
	s.closed = true
	s.wake.Signal()
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-s.stop.hard:
		s.giveUp()
	}
	s.mu.Lock()
	end := s.end
	s.mu.Unlock()
	if end != nil {
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			end()
		}()
		select {
		case <-ended:
		case <-s.stop.last:
		}
	}
}

func (s *sink) run() {
	defer close(s.done)
	for {
		r, ok := s.next()
		if !ok {
			return
		}
		counts, confirmed := s.confirmHang(r)
		if s.first && counts && confirmed && s.subjectToConfirm(r) {
			s.confirmed(r.check)
		}
		s.mu.Lock()
		s.currentConfirmed = confirmed
		s.mu.Unlock()
		var f *finding.Finding
		if counts {
			f = s.minimize(r)
			if r.kept {
				// Its host's cause is what it shrank keeping; what it is
				// written for is the cache.
				f.Cause = strings.TrimSuffix(keptCause+"; "+f.Cause, "; ")
			}
			f.MinDetail += stoodIn(r, f)
		}
		s.mu.Lock()
		s.current = nil
		if s.gaveUp {
			s.mu.Unlock()
			return
		}
		if counts {
			s.record(r, f, !confirmed)
		} else {
			s.unconfirmed++
			if r.f.Step > 0 {
				delete(s.hangs, r.sc.Steps[r.f.Step-1].Op.Kind) // a later hang on that kind may be real
			}
		}
		s.mu.Unlock()
		if !counts && s.released != nil {
			s.released(r) // not under mu: the collector hands findings over with its own lock held
		}
	}
}

// stoodIn is the words a finding's explanation ends with when the door
// answered its op as the model does, the sandbox's own answer counted
// stricter (r.stricter), and the op the finding was minimized to is that
// op: the result the oracle's words give is the model's, not the
// sandbox's, which a reader would otherwise take for what it answered.
func stoodIn(r raw, f *finding.Finding) string {
	if r.stricter == "" || f.MinStep <= 0 || f.MinStep > len(f.Minimized.Steps) || r.f.Step <= 0 {
		return ""
	}
	if !slices.Equal(f.Minimized.Steps[f.MinStep-1].Op.Args, r.sc.Steps[r.f.Step-1].Op.Args) || f.Minimized.Steps[f.MinStep-1].Op.Kind != r.sc.Steps[r.f.Step-1].Op.Kind {
		return ""
	}
	return fmt.Sprintf(" (when the campaign found it, the sandbox's own answer to this op was counted stricter than the model, %s: the result given is the model's, standing in)", r.stricter)
}

// confirmHang reports whether r is written (counts), and whether it is
// confirmed: any finding but a hang on an op of a sandbox whose hangs are
// confirmed (sut.Target.ConfirmHangs) is both; such a hang is both when
// its scenario, judged once more on a fresh session with the campaign's
// full timeouts, hangs on an op again. A real server on a busy machine may
// miss the op timeout once; if a fresh one answers every op in time, the
// machine was slow, not the server hung: neither. When no fresh session
// can be started, the hang is both: it could not be ruled out; when the
// campaign is stopping, it is written but not confirmed.
func (s *sink) confirmHang(r raw) (counts, confirmed bool) {
	if !s.subjectToConfirm(r) {
		return true, true
	}
	if s.stop.stopping() {
		return true, false
	}
	started := true
	start := func() (core.Factory, func() error, error) {
		f, end, err := s.target.Start()
		started = err == nil
		return f, end, err
	}
	judge := minimize.Fresh(start, s.stop.minimize)
	judged := minimize.JudgedLike(judge, r.f, s.p.Timeout, s.p.StartTimeout)(r.sc)
	switch {
	case s.stop.stopping():
		return true, false
	case judged || !started:
		return true, true
	}
	return false, false
}

// subjectToConfirm reports whether r is a hang of a sandbox whose hangs
// are confirmed (confirmHang): on an op, or before any (a server that did
// not start in time).
func (s *sink) subjectToConfirm(r raw) bool {
	return s.target.ConfirmHangs && r.f.Hang
}

// next waits for the next raw finding to minimize and marks it current;
// ok is false when the sink is closed and empty, or given up. A hang on
// an op of a kind that hung before is taken for the same finding and
// skipped: minimizing one costs a timeout a candidate.
func (s *sink) next() (r raw, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		for len(s.queue) == 0 && !s.closed && !s.gaveUp {
			s.wake.Wait()
		}
		if s.gaveUp || len(s.queue) == 0 {
			return raw{}, false
		}
		r = s.queue[0]
		s.queue[0] = raw{} // let the scenario go once done
		s.queue = s.queue[1:]
		if s.first && s.decided {
			continue // the campaign's one finding is written
		}
		if !s.knownHang(r) {
			s.current, s.currentConfirmed = &r, false
			return r, true
		}
	}
}

// knownHang reports whether r is a hang on an op of a kind that hung in a
// finding before, and notes the kind of a new one. Call with mu held.
func (s *sink) knownHang(r raw) bool {
	if !r.f.Hang || r.f.Step <= 0 {
		return false
	}
	kind := r.sc.Steps[r.f.Step-1].Op.Kind
	if s.hangs[kind] {
		return true
	}
	s.hangs[kind] = true
	return false
}

// minimize runs r through the pipeline on the sink's session, started at
// the first finding. Once the stopper's minimize stage has begun (or when
// no session can be started) the pipeline leaves r as it is, at once.
func (s *sink) minimize(r raw) *finding.Finding {
	origin := fmt.Sprintf("seed %d, check %d", s.seed, r.check)
	if s.p.Factory == nil && !s.stop.stopping() {
		s.startSession()
	}
	if s.p.Factory == nil {
		return s.asFound(r)
	}
	return s.p.ProcessAlong(r.sc, r.f, r.along, origin)
}

// startSession starts the sink's own session, for minimizing. A failure
// is kept (the campaign reports it) and the findings are then written as
// they were found. A session started as the sink is given up is ended at
// once: no one else would end it.
func (s *sink) startSession() {
	f, end, err := s.target.Start()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		if s.err == nil {
			s.err = fmt.Errorf("starting %s to minimize: %w", s.target.Name, err)
		}
	case s.gaveUp:
		go end()
	default:
		s.p.Factory, s.end = f, end
	}
}

// asFound is r as it was found, not minimized: what a pipeline whose stop
// is closed makes of it, judging nothing.
func (s *sink) asFound(r raw) *finding.Finding {
	return s.as.Process(r.sc, r.f, fmt.Sprintf("seed %d, check %d", s.seed, r.check))
}

// closedChan is a closed channel: a minimization stopped before it starts.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// giveUp stops the sink: its goroutine writes nothing more, and the raw
// findings still queued or being minimized are written as they were
// found, each header saying they were not minimized.
func (s *sink) giveUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gaveUp {
		return
	}
	s.gaveUp = true
	left := s.queue
	if s.current != nil {
		left = append([]raw{*s.current}, left...)
	}
	s.queue = nil
	s.wake.Broadcast()
	for i, r := range left {
		current := i == 0 && s.current != nil
		if current || !s.knownHang(r) { // the current one passed knownHang already
			s.record(r, s.asFound(r), s.subjectToConfirm(r) && !(current && s.currentConfirmed))
		}
	}
}

// record deduplicates f, the finding of r, writes it and keeps it, marked
// unconfirmed when it is a timeout a fresh sandbox did not judge again.
// Under first, nothing is recorded after a finding that counts. Call with
// mu held.
func (s *sink) record(r raw, f *finding.Finding, unconfirmed bool) {
	if s.first && s.decided {
		return
	}
	key := f.Key() // in full: two findings may share a name's hash
	if s.seen[key] {
		return
	}
	s.seen[key] = true
	if !unconfirmed {
		s.decided = true
	}
	out := Finding{Check: r.check, Finding: f, Unminimized: unminimized(f), Unconfirmed: unconfirmed}
	if s.out != "" {
		path, err := s.write(f, out.Unminimized, out.Unconfirmed)
		if err != nil && s.err == nil {
			s.err = fmt.Errorf("writing a finding: %w", err)
		}
		out.Path = path
	}
	s.findings = append(s.findings, out)
	if s.written != nil {
		s.written(out)
	}
}

// unminimized reports whether f was left as it was found: its
// minimization stopped before any candidate was tried.
func unminimized(f *finding.Finding) bool { return f.Stats.Cut && f.Stats.Calls == 0 }

// write writes f to the output directory; the header of a finding that
// was not minimized says so, and how to minimize it, where the pipeline's
// header would say it was minimized from N ops to N, and that of a
// timeout not confirmed, that it was not.
func (s *sink) write(f *finding.Finding, unminimized, unconfirmed bool) (string, error) {
	if !unminimized && !unconfirmed {
		return s.as.Write(s.out, f)
	}
	path := filepath.Join(s.out, f.FileName())
	s.as.Annotate(f, path)
	if unminimized {
		note := fmt.Sprintf("not minimized: the campaign stopped first (%d ops); minimize it with: %s minimize %s -w %s",
			len(f.Minimized.Steps), s.as.Invocation(), finding.SUTArgs(s.target.Name, s.target.Flags), finding.QuoteArg(filepath.ToSlash(path)))
		c := f.Minimized.Comment
		if i := slicesIndexPrefix(c, "minimized from "); i >= 0 {
			c[i] = note
		} else {
			f.Minimized.Comment = append(c, note)
		}
	}
	if unconfirmed {
		f.Minimized.Comment = append(f.Minimized.Comment, unconfirmedNote)
	}
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return "", err
	}
	return path, fsutil.WriteAtomic(path, f.Minimized.Format(), 0o644)
}

// unconfirmedNote is the header line of a timeout the campaign stopped
// before it was judged again on a fresh sandbox.
const unconfirmedNote = "not judged again: the campaign stopped before a fresh sandbox judged this timeout (a slow machine misses --timeout), so it does not count; replay it, with a longer --timeout if need be"

// slicesIndexPrefix returns the index of the first line of lines that
// starts with prefix, or -1.
func slicesIndexPrefix(lines []string, prefix string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// result returns the findings, how many hangs were not confirmed, and
// the first failure to write.
func (s *sink) result() ([]Finding, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.findings, s.unconfirmed, s.err
}

// count returns how many findings are minimized (or written as found) so
// far.
func (s *sink) count() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(len(s.findings))
}

// queued is how many findings the sink holds and has not written yet: the
// one being minimized, and those waiting.
func (s *sink) queued() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := int64(len(s.queue))
	if s.current != nil {
		n++
	}
	return n
}
