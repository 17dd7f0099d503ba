// Package realsut turns a sandbox that acts on the real disk into a
// sandbox the oracle can judge (SPEC §13). For each scenario it
// materializes the world as a tree (package realfs), drives the real
// sandbox over it, and writes what it observed into the harness's world as
// journal entries: every change to the tree becomes a write of the path
// changed, and returned data that holds a forbidden file's canary becomes
// a read of that file. The oracle then judges the journal as it judges any
// sandbox's, so confinement, no-effect-on-denial, verdict-matches-model,
// replay-deterministic and total keep their meaning; what cannot be
// observed is declared not applicable, with the reason.
package realsut

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Adapter says how to drive one kind of real sandbox.
type Adapter struct {
	// Name is the --sut value: "osroot", "mcp:node server.js".
	Name string
	// Open begins a session of the sandbox (one per campaign worker): a
	// Session starts drivers over trees, one at a time or two at once
	// (the oracle's run and its replay). dir is a directory of the
	// session's own, outside every tree, removed when the session ends: a
	// server's working directory, say. t is the Adapter's Timeouts.
	Open func(dir string, t Timeouts) (Session, error)
	// TreeDir is the directory the trees are made under, in a run
	// directory of each session's own (realfs.OpenRunDir); "" is
	// realfs.DefaultTreeDir().
	TreeDir string
	// Timeouts bound what the sandbox is asked (the command's --timeout
	// and --start-timeout); zero fields are the door's defaults.
	Timeouts Timeouts
	// Adapt rewrites a generated scenario into one the sandbox can
	// express (dropping ops it has no tool for, narrowing the grant to
	// what it can be given), or returns nil when nothing of it can be.
	Adapt func(*scenario.Scenario) *scenario.Scenario
	// NotApplicable lists the invariants that cannot be observed on the
	// sandbox, by ID, each with the reason; reports show them as n/a.
	NotApplicable map[string]string
	// Unasked says which ops Adapt drops for want of a tool, and why
	// (door.Target's Unasked).
	Unasked string
	// Asks says what Adapt keeps, for a replay that skips steps
	// (door.Target's Asks).
	Asks string
	// Why says why Adapt keeps nothing of a scenario (door.Target's Why).
	Why func(*scenario.Scenario) string
	// RelativeLinks writes absolute link targets relative to the link's
	// directory (realfs.MaterializeRelative), for sandboxes that refuse
	// absolute links.
	RelativeLinks bool
	// OwnNames are the names of entries the sandbox keeps for itself in
	// its directories (mcp.Profile.OwnNames), which the restore of a tree
	// leaves and the observer skips.
	OwnNames []string
	// Promises lists the reasons (StricterReasons, or PromisesAll) for
	// which the sandbox promises to allow what the model allows. A
	// refusal of such an op for another reason is stricter, not broken
	// (SPEC §14): counted under its reason (door.Tally), not judged, and
	// answered as the model does, the harness making a write itself; one
	// for a promised reason is a verdict-matches-model finding.
	Promises []string
	// CleansDots says that the sandbox is sent paths with ".." (Adapt
	// keeps them, ending a scenario at the first) and may clean them
	// before its check: its answer to such an op is not judged, the
	// model's stands in, and of what it did, all but the write the clean
	// path allows is journaled (mcp.Profile.DotDot).
	CleansDots bool
	// Trims says that the sandbox strips white space and a quote from
	// each end of a path before it checks it (mcp.Profile.Trims): Adapt
	// keeps an op on such a path (mcp.Trimmed), ending a scenario at the
	// first; its answer is not judged, the model's stands in, and of what
	// it did, all but the write the trimmed path allows is journaled. A
	// sandbox that checks the path as asked and then trims it, opening
	// another, is judged by what it let out.
	Trims bool
	// JudgesLanding says that the sandbox judges where an op lands, not
	// the path asked (a mount namespace, a server that resolves links
	// before its check): an op the model denies for its path, which the
	// world's links lead under a root of its kind, is counted when the
	// sandbox allows it and does nothing else (door.Tally.Landed), not
	// judged, and answered as the model does; after such a write the
	// tree is not the model's, and every later op of the scenario is
	// answered as the model, what it does judged (mcp.Profile.Lands).
	JudgesLanding bool
	// SkippedLines, when set, reports how many stdout lines that were not
	// protocol the servers of a session (Open's) skipped, closed ones
	// included: the session's tally carries it.
	SkippedLines func(Session) int64
	// RootBlock is sut.Target's: how many scenarios in a row a campaign
	// draws with read roots from one base, for a sandbox that restarts
	// for each new set of roots; 0 draws the base for each.
	RootBlock int
}

// Timeouts bound a real sandbox that runs in a process of its own.
type Timeouts struct {
	Op    time.Duration // one op (one tools/call of an MCP server); 0: the door's default
	Start time.Duration // starting the sandbox, handshake included; 0: the door's default
}

// Session starts drivers of one sandbox, from one goroutine at a time.
type Session interface {
	// Driver starts (or reuses) the sandbox over tree t, holding grant g;
	// ws is the world t was materialized from.
	Driver(t *realfs.Tree, g core.GrantSpec, ws scenario.WorldSpec) (realfs.Driver, error)
	// Close stops everything the session started.
	Close() error
}

// BudgetsNA is why the budget invariants are not applicable to a real
// file sandbox: it has no budgets, so the harness charges them itself, and
// they would only test the harness.
const BudgetsNA = "the sandbox has no budgets: the harness charges ops, wall and output itself, so these checks would test the harness"

// FSOnlyNA is the NotApplicable table of a sandbox of file tools: no
// network, no budgets, no grant to read back.
var FSOnlyNA = map[string]string{
	"no-internal-egress":     "the sandbox has file tools only: no net_fetch op is sent to it",
	"halt-latched":           BudgetsNA,
	"charge-before-dispatch": BudgetsNA,
	"output-bounded":         BudgetsNA,
	"grant-immutable":        "a real sandbox's grant cannot be read back: the harness answers with its own copy",
}

// FSOnlyKindsNA are the result kinds a sandbox of file tools is never
// asked for: AdaptFS keeps well-formed fs_read and fs_write ops only.
var FSOnlyKindsNA = map[string]string{
	"egress_denied":   "the sandbox has file tools only: no net_fetch op is sent to it",
	"egress_internal": "the sandbox has file tools only: no net_fetch op is sent to it",
	"tool_denied":     "the sandbox has file tools only: no tool op is sent to it",
	"unknown_op":      "the door sends only well-formed file ops",
	"malformed_op":    "the door sends only well-formed file ops",
}

// Start begins a session of a: it is sut.Target's Start (StartCounted
// without the tally). The factory
// materializes each world in a run directory of the session's own under
// a.TreeDir, in one of a few slots (the oracle holds the run's sandbox and
// the replay's at once), restored in place scenario after scenario with a
// moat of at least moatDepth, so that a slot's T keeps its path and a
// server given its directories serves the next world too; end stops the
// session's sandboxes and removes the run directory. Starting removes the run directories of dead runs
// there (realfs.OpenRunDir).
func (a Adapter) Start() (core.Factory, func() error, error) {
	f, end, _, err := a.StartCounted()
	return f, end, err
}

// StartCounted is Start, with a function that reads what the session
// counted (door.Target's StartCounted): the stricter ops of its checks'
// runs, by reason, and the stdout lines its servers skipped.
func (a Adapter) StartCounted() (core.Factory, func() error, func() door.Tally, error) {
	run, err := openRunDir(a.TreeDir)
	if err != nil {
		return nil, nil, nil, err
	}
	own := filepath.Join(run.Path(), "own")
	if err := os.Mkdir(own, 0o700); err != nil {
		run.Remove()
		return nil, nil, nil, err
	}
	// Trees are built through a root on the run directory: a sandbox that
	// puts a link where a slot or its moat was, or the run directory
	// itself, leads nothing the harness does out of it.
	root, err := os.OpenRoot(run.Path())
	if err != nil {
		run.Remove()
		return nil, nil, nil, err
	}
	sess, err := a.Open(own, a.Timeouts)
	if err != nil {
		root.Close()
		run.Remove()
		return nil, nil, nil, err
	}
	s := &session{run: run, root: root, sess: sess, layout: realfs.Options{RelativeLinks: a.RelativeLinks, MinDepth: moatDepth, KeepRoots: true, Own: a.OwnNames},
		promises: a.Promises, cleans: a.CleansDots, trims: a.Trims, lands: a.JudgesLanding, tally: &door.Counter{CountsPassed: true}}
	end := func() error {
		err := sess.Close()
		root.Close()
		return errors.Join(err, run.Remove())
	}
	var skipped func() int64
	if a.SkippedLines != nil {
		skipped = func() int64 { return a.SkippedLines(sess) }
	}
	return s.factory, end, func() door.Tally { return s.tally.Read(skipped) }, nil
}

// openRunDir makes a run directory under treeDir, or under
// realfs.DefaultTreeDir() when treeDir is "".
func openRunDir(treeDir string) (*realfs.RunDir, error) {
	if treeDir == "" {
		var err error
		if treeDir, err = realfs.DefaultTreeDir(); err != nil {
			return nil, err
		}
	}
	return realfs.OpenRunDir(treeDir)
}

// session hands out tree slots: a slot is busy from the build of a
// sandbox to its Close.
type session struct {
	// run is the run directory, held for as long as the factory is: a
	// caller that keeps the factory and drops the end function (a fuzz
	// target, for its process's life) would otherwise have its lock
	// closed by the collector, and another run's sweep remove the trees
	// the factory builds.
	run      *realfs.RunDir
	root     *os.Root // the run directory
	sess     Session
	layout   realfs.Options
	promises []string // Adapter.Promises
	cleans   bool     // Adapter.CleansDots
	trims    bool     // Adapter.Trims
	lands    bool     // Adapter.JudgesLanding
	tally    *door.Counter
	mu       sync.Mutex // Close of a hung sandbox comes from the oracle's watchdog
	busy     []bool
}

func (s *session) take() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, b := range s.busy {
		if !b {
			s.busy[i] = true
			return i
		}
	}
	s.busy = append(s.busy, true)
	return len(s.busy) - 1
}

func (s *session) give(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy[i] = false
}

// factory is the session's core.Factory: the world handed in must be the
// harness's *refworld.World, whose spec is materialized.
func (s *session) factory(g core.Grant, w core.World) (core.Sandbox, error) {
	rw, ok := w.(*refworld.World)
	if !ok {
		return nil, fmt.Errorf("a real sandbox needs the harness's own world, not a %T", w)
	}
	rw.SetStandIns() // the bridge answers as the model where it excuses the server
	slot := s.take()
	t, err := realfs.MaterializeIn(s.root, strconv.Itoa(slot), rw.Spec(), g.Spec(), moatOps, s.layout)
	if err != nil {
		s.give(slot)
		return nil, err
	}
	drv, err := s.sess.Driver(t, g.Spec(), rw.Spec())
	if err != nil {
		s.give(slot)
		return nil, err
	}
	b := newBridge(g, rw, t, drv, func() { s.give(slot) })
	b.promises, b.cleans, b.trims, b.lands, b.tally, b.counts = s.promises, s.cleans, s.trims, s.lands, s.tally, s.tally.Opened()
	return b, nil
}
