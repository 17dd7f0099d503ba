// Package rapidsrc is the generators' randomness drawn from a *rapid.T, so
// that rapid can shrink a failing scenario: every draw shrinks towards 0,
// and the generators put their simplest choice at index 0. It imports rapid
// and nothing of sbxfuzz, so the generators stay free of rapid (the command
// line never links it) and their own tests can still use it.
package rapidsrc

import "pgregory.net/rapid"

// Source draws from a *rapid.T. It satisfies generators.Source and
// generators.Grouper. It is not safe for concurrent use.
type Source struct{ t *rapid.T }

// New returns a Source drawing from t.
func New(t *rapid.T) *Source { return &Source{t: t} }

// Intn returns a value in [0, n), drawn so that it shrinks to 0. It panics
// when n <= 0.
func (s *Source) Intn(n int) int {
	if n <= 0 {
		panic("rapidsrc: Intn of a non-positive n")
	}
	if n == 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(s.t, "")
}

// Group makes the draws fn makes one rapid value, so shrinking can delete
// them together. fn draws from s, which points at the group's own *rapid.T
// while fn runs.
func (s *Source) Group(fn func()) {
	rapid.Custom(func(t *rapid.T) bool {
		outer := s.t
		s.t = t
		defer func() { s.t = outer }()
		fn()
		return true
	}).Draw(s.t, "")
}
