package door

import (
	"io"
	"maps"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// Watch notes, op by op, what a real sandbox's session counted beside its
// checks: the ops it refused that the model allows (Tally.Stricter), by
// reason, and the refusals whose journal its door filled (Tally.Filled),
// each by its place in the check's run (0 the first op). Only the run of
// a check counts (Counter.Opened), not the oracle's second run, so the
// places are the run's. replay marks its steps with them; a campaign keeps
// a scenario of each reason. Safe for concurrent use.
type Watch struct {
	tally    func() Tally
	mu       sync.Mutex
	marks    map[int]string // the op's place: the reason counted during it
	filled   map[int]bool
	modelled map[int]bool
	cleaned  map[int]string // the server's own answer to an op with ".."
	unknown  map[int]bool   // a refusal in words the profile does not tell
	said     map[int]string // the words of any refusal
	landed   map[int]bool
	parted   map[int]bool
	bare     map[int]bool
	kept     map[int]bool
	moved    map[int]bool
}

// NewWatch returns a Watch over the session whose counts tally reads.
func NewWatch(tally func() Tally) *Watch { return &Watch{tally: tally} }

// Factory wraps f so that each sandbox it builds is watched.
func (w *Watch) Factory(f core.Factory) core.Factory {
	return func(g core.Grant, wd core.World) (core.Sandbox, error) {
		sb, err := f(g, wd)
		if err != nil {
			return nil, err
		}
		return &watched{Sandbox: sb, w: w}, nil
	}
}

// Reset forgets what was noted: before the next check.
func (w *Watch) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.marks)
	clear(w.filled)
	clear(w.modelled)
	clear(w.cleaned)
	clear(w.unknown)
	clear(w.said)
	clear(w.landed)
	clear(w.parted)
	clear(w.bare)
	clear(w.kept)
	clear(w.moved)
}

// Marks returns, by the place of the op, the stricter reason counted
// during it, and whether its journal was filled.
func (w *Watch) Marks() (stricter map[int]string, filled map[int]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.marks), maps.Clone(w.filled)
}

// Modelled returns the places of the ops answered as the model after a
// stricter refusal before them (Tally.Modelled).
func (w *Watch) Modelled() map[int]bool {
	return cloned(&w.mu, &w.modelled)
}

// Cleaned returns, by the place of an op with ".." or "\" a server reads
// by its own policy, the server's answer to it (Tally.Cleaned).
func (w *Watch) Cleaned() map[int]string {
	return cloned(&w.mu, &w.cleaned)
}

// Unknown returns the places of the ops refused in words the profile
// does not tell (Tally.Unknown); Said has the words.
func (w *Watch) Unknown() map[int]bool {
	return cloned(&w.mu, &w.unknown)
}

// Said returns, by the place of an op the sandbox refused or found
// nothing for in words of its own, those words (Tally.Said).
func (w *Watch) Said() map[int]string {
	return cloned(&w.mu, &w.said)
}

// Landed returns the places of the ops allowed where they land
// (Tally.Landed).
func (w *Watch) Landed() map[int]bool {
	return cloned(&w.mu, &w.landed)
}

// Parted returns the places of the ops answered as the model after a
// landed op changed the sandbox's tree (Tally.Parted).
func (w *Watch) Parted() map[int]bool {
	return cloned(&w.mu, &w.parted)
}

// Bare returns the places of the ops with a connection that sent no
// request (Tally.Bare).
func (w *Watch) Bare() map[int]bool {
	return cloned(&w.mu, &w.bare)
}

// Kept returns the places of the fetches from an answer kept from an
// earlier op (Tally.Kept).
func (w *Watch) Kept() map[int]bool {
	return cloned(&w.mu, &w.kept)
}

// LineMoved returns the places of the fetches let through on lookups off
// the model's dns line (Tally.LineMoved).
func (w *Watch) LineMoved() map[int]bool {
	return cloned(&w.mu, &w.moved)
}

// note notes what the op at place n made the session count, after was.
func (w *Watch) note(n int, was, now Tally) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if now.Filled > was.Filled {
		put(&w.filled, n, true)
	}
	if now.Modelled > was.Modelled {
		put(&w.modelled, n, true)
	}
	if now.Landed > was.Landed {
		put(&w.landed, n, true)
	}
	if now.Parted > was.Parted {
		put(&w.parted, n, true)
	}
	if now.Bare > was.Bare {
		put(&w.bare, n, true)
	}
	if now.Kept > was.Kept {
		put(&w.kept, n, true)
	}
	if now.LineMoved > was.LineMoved {
		put(&w.moved, n, true)
	}
	if now.Cleaned > was.Cleaned {
		put(&w.cleaned, n, now.CleanedAnswer)
	}
	if now.Unknown > was.Unknown {
		put(&w.unknown, n, true)
	}
	if now.Said > was.Said {
		put(&w.said, n, now.SaidWords)
	}
	for reason, k := range now.Stricter {
		if k > was.Stricter[reason] {
			put(&w.marks, n, reason)
		}
	}
}

// put sets (*m)[n] to v, making the map when there is none yet.
func put[V any](m *map[int]V, n int, v V) {
	if *m == nil {
		*m = map[int]V{}
	}
	(*m)[n] = v
}

// cloned is a copy of *m, read under mu.
func cloned[V any](mu *sync.Mutex, m *map[int]V) map[int]V {
	mu.Lock()
	defer mu.Unlock()
	return maps.Clone(*m)
}

// watched is a sandbox whose ops a Watch notes.
type watched struct {
	core.Sandbox
	w *Watch
	n int // ops run
}

func (s *watched) Run(op core.Op) core.Result {
	was := s.w.tally()
	r := s.Sandbox.Run(op)
	s.w.note(s.n, was, s.w.tally())
	s.n++
	return r
}

// Close closes the sandbox watched, when it has a Close: the oracle
// closes what it built.
func (s *watched) Close() error {
	if c, ok := s.Sandbox.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
