package door

import (
	"slices"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Narrowed is a scenario as the sandbox under test can be asked it: what
// a campaign checks of a generated scenario (Target.Adapt), for a scenario
// that comes from a file (replay, minimize, import), so that every command
// treats a real sandbox as run does.
type Narrowed struct {
	// Scenario is what the sandbox is asked: the original itself when the
	// Target has no adapter, else the adapter's rewrite of it (a scenario
	// of its own); nil when the sandbox can express none of it.
	Scenario *scenario.Scenario
	// Of maps Scenario's steps to the original's: step i+1 of Scenario is
	// step Of[i] of the original (1-based). Nil when the adapter rewrote
	// ops beyond recognition, so that no step can be traced back.
	Of []int
	// Skipped lists the original's steps (1-based) that Scenario leaves
	// out: the sandbox cannot be asked them, so they are neither run nor
	// judged, only counted.
	Skipped []int
}

// Narrow returns sc as t can express it. sc is not modified.
func (t Target) Narrow(sc *scenario.Scenario) Narrowed {
	if t.Adapt == nil {
		of := make([]int, len(sc.Steps))
		for i := range of {
			of[i] = i + 1
		}
		return Narrowed{Scenario: sc, Of: of}
	}
	a := t.Adapt(sc.Clone()) // an adapter may return what it was given
	if a == nil {
		n := Narrowed{}
		for i := range sc.Steps {
			n.Skipped = append(n.Skipped, i+1)
		}
		return n
	}
	n := Narrowed{Scenario: a, Of: traceSteps(sc.Steps, a.Steps)}
	if n.Of != nil {
		for i := range sc.Steps {
			if !slices.Contains(n.Of, i+1) {
				n.Skipped = append(n.Skipped, i+1)
			}
		}
	}
	return n
}

// traceSteps finds kept, in order, among orig: the 1-based index in orig
// of each step of kept, or nil when kept is not a subsequence of orig (an
// adapter that rewrote an op).
func traceSteps(orig, kept []scenario.Step) []int {
	of := make([]int, 0, len(kept))
	j := 0
	for _, k := range kept {
		for j < len(orig) && !sameStep(orig[j], k) {
			j++
		}
		if j == len(orig) {
			return nil
		}
		j++
		of = append(of, j)
	}
	return of
}

// sameStep reports whether k is orig, kept by an adapter: the same op, from
// the same line when both know theirs.
func sameStep(orig, k scenario.Step) bool {
	if orig.Line != 0 && k.Line != 0 && orig.Line != k.Line {
		return false
	}
	return orig.Op.Kind == k.Op.Kind && slices.Equal(orig.Op.Args, k.Op.Args)
}
