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
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.modelled)
}

// Cleaned returns, by the place of an op with ".." a server cleans by its
// own policy, the server's answer to it (Tally.Cleaned).
func (w *Watch) Cleaned() map[int]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.cleaned)
}

// Unknown returns the places of the ops refused in words the profile
// does not tell (Tally.Unknown); Said has the words.
func (w *Watch) Unknown() map[int]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.unknown)
}

// Said returns, by the place of an op the sandbox refused or found
// nothing for in words of its own, those words (Tally.Said).
func (w *Watch) Said() map[int]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.said)
}

// Landed returns the places of the ops allowed where they land
// (Tally.Landed).
func (w *Watch) Landed() map[int]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.landed)
}

// Parted returns the places of the ops answered as the model after a
// landed op changed the sandbox's tree (Tally.Parted).
func (w *Watch) Parted() map[int]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.parted)
}

// Bare returns the places of the ops with a connection that sent no
// request (Tally.Bare).
func (w *Watch) Bare() map[int]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.bare)
}

// Kept returns the places of the fetches from an answer kept from an
// earlier op (Tally.Kept).
func (w *Watch) Kept() map[int]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.kept)
}

// LineMoved returns the places of the fetches let through on lookups off
// the model's dns line (Tally.LineMoved).
func (w *Watch) LineMoved() map[int]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return maps.Clone(w.moved)
}

// note notes what the op at place n made the session count, after was.
func (w *Watch) note(n int, was, now Tally) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if now.Filled > was.Filled {
		if w.filled == nil {
			w.filled = map[int]bool{}
		}
		w.filled[n] = true
	}
	if now.Modelled > was.Modelled {
		if w.modelled == nil {
			w.modelled = map[int]bool{}
		}
		w.modelled[n] = true
	}
	if now.Landed > was.Landed {
		if w.landed == nil {
			w.landed = map[int]bool{}
		}
		w.landed[n] = true
	}
	if now.Parted > was.Parted {
		if w.parted == nil {
			w.parted = map[int]bool{}
		}
		w.parted[n] = true
	}
	if now.Bare > was.Bare {
		if w.bare == nil {
			w.bare = map[int]bool{}
		}
		w.bare[n] = true
	}
	if now.Kept > was.Kept {
		if w.kept == nil {
			w.kept = map[int]bool{}
		}
		w.kept[n] = true
	}
	if now.LineMoved > was.LineMoved {
		if w.moved == nil {
			w.moved = map[int]bool{}
		}
		w.moved[n] = true
	}
	if now.Cleaned > was.Cleaned {
		if w.cleaned == nil {
			w.cleaned = map[int]string{}
		}
		w.cleaned[n] = now.CleanedAnswer
	}
	if now.Unknown > was.Unknown {
		if w.unknown == nil {
			w.unknown = map[int]bool{}
		}
		w.unknown[n] = true
	}
	if now.Said > was.Said {
		if w.said == nil {
			w.said = map[int]string{}
		}
		w.said[n] = now.SaidWords
	}
	for reason, k := range now.Stricter {
		if k > was.Stricter[reason] {
			if w.marks == nil {
				w.marks = map[int]string{}
			}
			w.marks[n] = reason
		}
	}
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
