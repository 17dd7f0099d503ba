// Package judge is the oracle as the harness drives it: what the
// campaign, the finding pipeline, the minimizer, replay and the fuzz
// targets need of package oracle beyond its public API (one check, one
// Checker, findings, the catalogue, coverage). Here are checks with step
// reports, checks with no hang bound, a feed of cases checked one after
// another on one goroutine, a run stepped op by op, worlds prepared once
// for many checks, and the model's predictions. Findings and coverage are
// oracle's types; the machinery is oracle's too, lent through package
// engine.
package judge

import (
	"fmt"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// eng is the machinery oracle lent (oracle is initialized before judge).
var eng = engine.Lent[oracle.Finding, oracle.Coverage]()

type (
	// Case is a scenario ready to be judged: the scenario, its grant
	// validated (NewCase), and optionally its world prepared
	// (PrepareWorld). The case reads its scenario, which must not change
	// while it is judged.
	Case = engine.Case
	// PreparedWorld is a scenario's world prepared once for judging.
	PreparedWorld = engine.PreparedWorld
	// StepReport is what one op did, as the oracle observed it.
	StepReport = engine.StepReport
	// Options tune Check and CheckFeed: oracle.Options' hang bounds, and
	// Observe, called after every op of a watched run, on the check's
	// goroutine, before the next op runs; never after the check returned,
	// even for a sandbox that hung.
	Options = engine.Options
	// Run is one sandbox watched op by op over a fresh world (Watch).
	Run = engine.Run[oracle.Finding]
)

// NumInvariants is the number of invariants: arrays indexed by
// oracle.ID have this length.
const NumInvariants = int(oracle.Total) + 1

// MaxQuoted is the most bytes of one datum — an argument, a path, data,
// a name — that a finding quotes (QuoteData).
const MaxQuoted = 256

// NewCase validates sc's grant and its steps' classes, as oracle.Check
// does, and returns the case that judges sc. The error is core.NewGrant's
// (it unwraps to core.ErrInvalidGrant), or one that unwraps to
// oracle.ErrUnknownClass: a class past the catalogue would index past the
// coverage's tables.
func NewCase(sc *scenario.Scenario) (Case, error) {
	g, err := core.NewGrant(sc.Grant)
	if err != nil {
		return Case{}, err
	}
	for i, st := range sc.Steps {
		if st.Class >= attack.NumClasses {
			return Case{}, fmt.Errorf("step %d: class %d: %w", i+1, st.Class, oracle.ErrUnknownClass)
		}
	}
	return Case{Scenario: sc, Grant: g}, nil
}

// Check is oracle.Check of a case, with opt.Observe called after every op
// of the watched run. cov may be nil.
func Check(f core.Factory, c Case, cov *oracle.Coverage, opt Options) []oracle.Finding {
	if cov == nil {
		cov = new(oracle.Coverage)
	}
	var fs []oracle.Finding
	one := false
	next := func() (Case, core.Factory, bool) {
		if one {
			return Case{}, nil, false
		}
		one = true
		return c, nil, true
	}
	eng.CheckFeed(f, opt, next, func(_ Case, found []oracle.Finding) { fs = found }, cov)
	return fs
}

// CheckInline is Check on the calling goroutine, with no hang bound and no
// observer: for callers that bound time themselves (the fuzz targets: go
// test -fuzz reports a hung input), and for benchmarks.
func CheckInline(f core.Factory, c Case, cov *oracle.Coverage) []oracle.Finding {
	return eng.CheckInline(f, c, cov)
}

// A Feed hands CheckFeed its checks one at a time and takes their
// verdicts: Next returns the next case and the factory to build its
// sandboxes with (nil: CheckFeed's), or ok false to end; Judged receives
// the findings of the case Next returned last. Next and Judged are called
// alternately, never at once, but not always on one goroutine: they run
// on the checker's worker, except that the Judged of a case given up on (a
// hang) runs on CheckFeed's goroutine, and the checks after it on a new
// worker. Both must return (not call runtime.Goexit, as t.Fatal does).
type Feed interface {
	Next() (c Case, f core.Factory, ok bool)
	Judged(c Case, fs []oracle.Finding)
}

// CheckFeed judges every case feed gives, each as Check does, counting
// into cov, and returns when Next says there is no more. The checks run
// one after another on a worker goroutine, with no handoff between them:
// a campaign's worker draws, checks and records scenario after scenario
// there, while CheckFeed's goroutine only wakes a few times a timeout to
// watch for a hang. After a hang the checks go on, on a new worker. The
// worker counts into cov: read it once CheckFeed has returned (or from
// Judged).
func CheckFeed(f core.Factory, opt Options, feed Feed, cov *oracle.Coverage) {
	eng.CheckFeed(f, opt, feed.Next, feed.Judged, cov)
}

// Watch builds the sandbox under test with f over a fresh world from c's
// scenario and starts watching it, counting into cov (which may be nil).
// An error or a panic from f is a total finding at step 0 and leaves the
// run dead; a panic in a step is not recovered (Check recovers it). Close
// the run when done with it.
func Watch(f core.Factory, c Case, cov *oracle.Coverage) Run { return eng.Watch(f, c, cov) }

// PrepareWorld prepares ws for judging any number of scenarios over it
// (the fuzz targets' arenas), and for reading its template besides (a
// campaign counting what a scenario reaches). The world is immutable and
// safe for concurrent use; ws must not change.
func PrepareWorld(ws scenario.WorldSpec) PreparedWorld { return eng.PrepareWorld(ws) }

// Expected returns what SPEC §5 gives for every op of c, by the oracle's
// independent model: the results a correct sandbox returns, every op run
// (after a halt too). The finding pipeline writes them into a minimized
// finding as expectations, so that a committed finding is also a
// regression test that a correct sandbox passes and the defect fails.
func Expected(c Case) []core.Result { return eng.Expected(c) }

// FormatOp writes an op as a scenario line would: its kind and arguments,
// each token quoted where needed, and cut after MaxQuoted bytes (see
// QuoteData).
func FormatOp(op core.Op) string { return eng.FormatOp(op) }

// QuoteData writes s as a scenario token, or, when it is longer than
// MaxQuoted bytes, its first MaxQuoted bytes so written and "… (N bytes
// in all)".
func QuoteData(s string) string { return eng.QuoteData(s) }

// ParseID returns the invariant named s, and false when none is.
func ParseID(s string) (oracle.ID, bool) {
	for _, inv := range oracle.Invariants() {
		if inv.Name == s {
			return inv.ID, true
		}
	}
	return 0, false
}

// Add adds every counter of o to c.
func Add(c, o *oracle.Coverage) {
	for cl := range c.Classes {
		AddClass(&c.Classes[cl], &o.Classes[cl])
	}
	c.Ops += o.Ops
	c.Scenarios += o.Scenarios
}

// AddClass adds every counter of o, one class's, to c.
func AddClass(c, o *oracle.ClassCoverage) {
	for id := range c.Checked {
		c.Checked[id] += o.Checked[id]
		c.Violations[id] += o.Violations[id]
	}
	for k := range c.Kinds {
		c.Kinds[k] += o.Kinds[k]
	}
}

// Checked returns how often invariant id was checked in cov, over all
// classes.
func Checked(cov *oracle.Coverage, id oracle.ID) uint64 {
	var n uint64
	for cl := range cov.Classes {
		n += cov.Classes[cl].Checked[id]
	}
	return n
}

// Violations returns how often invariant id was violated in cov, over all
// classes.
func Violations(cov *oracle.Coverage, id oracle.ID) uint64 {
	var n uint64
	for cl := range cov.Classes {
		n += cov.Classes[cl].Violations[id]
	}
	return n
}

// ClassOps returns how many ops of class cl ran in cov.
func ClassOps(cov *oracle.Coverage, cl attack.Class) uint64 {
	var n uint64
	for _, x := range cov.Classes[cl].Kinds {
		n += x
	}
	return n
}
