// Package engine declares what package oracle lends package judge: its
// checking machinery in the shapes the harness drives it (a feed of cases,
// an inline check, a step-by-step run, prepared worlds, the model's
// predictions), and the values those take.
//
// It is a package of its own because of the import graph: judge imports
// oracle, whose Finding and Coverage it hands on, so oracle cannot import
// judge; both import engine, which imports neither. Oracle lends its
// Engine when it is initialized (Lend), before judge's own initialization
// reads it (Lent). F and C stand for oracle.Finding and oracle.Coverage,
// which this package cannot name.
package engine

import (
	"time"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Case is a scenario ready to be judged: the scenario, its grant
// validated, and optionally its world prepared. It only holds what
// checking a scenario needs built once.
type Case struct {
	Scenario *scenario.Scenario
	// Grant is Scenario.Grant, validated: the sandbox gets it, and the
	// model reads the same lists from Scenario.Grant.
	Grant core.Grant
	// World, when set, is Scenario.World already prepared (PrepareWorld
	// of it, or of a world equal to it); when nil, the check prepares the
	// world itself.
	World PreparedWorld
}

// PreparedWorld is a scenario's world prepared once for judging: the
// template the sandbox's worlds start from and the model's own reading of
// the same spec. Only oracle makes them.
type PreparedWorld interface {
	// Template returns core's template of the world: the state every
	// world of a check starts from.
	Template() *refworld.Template
}

// StepReport is what one op did, as the oracle observed it. Entries alias
// the world's journal: valid until the check returns, not to be modified.
type StepReport struct {
	Step    int
	Op      core.Op
	Result  core.Result
	Usage   core.Usage
	Entries []refworld.Entry
	// Violated names the invariants the op violated, in the oracle's
	// order: the first violation of each in a run is a finding, and a
	// later one only counted, so a replay shows them here.
	Violated []string
}

// Options tune a check run by a feed: the hang bounds of oracle.Options,
// and Observe, called after every op of the watched run on the check's
// goroutine (never after the check has returned).
type Options struct {
	Timeout, StartTimeout time.Duration
	Observe               func(StepReport)
}

// Run is one sandbox watched op by op over a fresh world.
type Run[F any] interface {
	// Step runs op, of attack class class, and judges every per-step
	// invariant; it returns the sandbox's result.
	Step(op core.Op, class attack.Class) core.Result
	// Findings returns the findings so far, in the order they were found.
	Findings() []F
	// Close closes the sandbox when it is an io.Closer.
	Close() error
}

// Engine is the oracle's machinery as the harness drives it; package judge
// documents each entry under its own name.
type Engine[F, C any] struct {
	// CheckFeed checks the cases next hands out on one worker goroutine,
	// handing each verdict to judged (judge.CheckFeed).
	CheckFeed func(f core.Factory, opt Options, next func() (Case, core.Factory, bool), judged func(Case, []F), cov *C)
	// CheckInline checks c on the calling goroutine (judge.CheckInline).
	CheckInline func(f core.Factory, c Case, cov *C) []F
	// Watch starts a run stepped op by op (judge.Watch).
	Watch func(f core.Factory, c Case, cov *C) Run[F]
	// PrepareWorld prepares a world once for many checks (judge.PrepareWorld).
	PrepareWorld func(ws scenario.WorldSpec) PreparedWorld
	// Expected is the model's results for c's ops (judge.Expected).
	Expected func(c Case) []core.Result
	// FormatOp and QuoteData write ops and data as findings do.
	FormatOp  func(op core.Op) string
	QuoteData func(s string) string
}

var lent any

// Lend makes e the engine Lent returns. Package oracle calls it once, when
// it is initialized.
func Lend[F, C any](e *Engine[F, C]) { lent = e }

// Lent returns the engine oracle lent, for F and C as oracle's Finding and
// Coverage. It panics if oracle lent none, or lent it for other types:
// a mistake of the program, caught by its first test.
func Lent[F, C any]() *Engine[F, C] {
	e, ok := lent.(*Engine[F, C])
	if !ok {
		panic("engine: package oracle lent no engine for these types")
	}
	return e
}
