package generators

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/rapidsrc"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// scenarios is Generate as a rapid generator, over a Source backed by the
// *rapid.T, so failing scenarios shrink. (sbxtest.Scenarios is the same
// generator; this package's tests cannot import sbxtest.)
var scenarios = rapid.Custom(func(t *rapid.T) *scenario.Scenario { return Generate(rapidsrc.New(t)) })

// TestScenariosPassReference is the sequence-of-ops property: every
// scenario Scenarios draws passes every invariant on the reference.
func TestScenariosPassReference(t *testing.T) {
	rapid.Check(t, scenarioProperty(core.ReferenceFactory, nil))
}

// TestMachinePassesReference is the state-machine property: one grant and
// world, then ops of any class in any order, judged after every step.
func TestMachinePassesReference(t *testing.T) {
	rapid.Check(t, machineProperty(core.ReferenceFactory, nil))
}

// TestScenarioPropertyFindsPrefixBug: the sequence property catches the
// classic raw-prefix bug and shrinks it to one or two ops.
func TestScenarioPropertyFindsPrefixBug(t *testing.T) {
	var failed *scenario.Scenario
	out := expectFailure(t, scenarioProperty(rawPrefixFactory, &failed))
	if failed == nil {
		t.Fatalf("the property failed without keeping its scenario; rapid said:\n%s", out)
	}
	t.Logf("shrunk counterexample:\n%s", failed.Format())
	if n := len(failed.Steps); n == 0 || n > 2 {
		t.Fatalf("the counterexample has %d ops, want 1 or 2; rapid said:\n%s", n, out)
	}
	confirmCounterexample(t, failed)
}

// TestMachinePropertyFindsPrefixBug: the state machine catches the same bug
// and shrinks it to one or two steps.
func TestMachinePropertyFindsPrefixBug(t *testing.T) {
	var failed machineRun
	out := expectFailure(t, machineProperty(rawPrefixFactory, &failed))
	sc := failed.scenario()
	t.Logf("shrunk counterexample:\n%s", sc.Format())
	if n := len(failed.ops); n == 0 || n > 2 {
		t.Fatalf("the counterexample has %d steps, want 1 or 2; rapid said:\n%s", n, out)
	}
	confirmCounterexample(t, sc)
}

// confirmCounterexample checks that the shrunk scenario passes on the
// reference, fails on the broken sandbox, and reads a path the raw prefix
// let through.
func confirmCounterexample(t *testing.T, sc *scenario.Scenario) {
	t.Helper()
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Fatalf("the counterexample has an invalid grant: %v", err)
	}
	if fs := judge.CheckInline(core.ReferenceFactory, c, new(oracle.Coverage)); len(fs) > 0 {
		t.Fatalf("the counterexample fails on the reference too: %v", fs[0])
	}
	fs := judge.CheckInline(rawPrefixFactory, c, new(oracle.Coverage))
	if len(fs) == 0 || !slices.ContainsFunc(fs, func(f oracle.Finding) bool { return f.Invariant == oracle.Confinement }) {
		t.Fatalf("the counterexample does not break confinement on the broken sandbox: %v", fs)
	}
	t.Logf("%v", fs[0])
}

// scenarioProperty checks a drawn scenario on f; on a finding it keeps the
// scenario in *failed (when not nil) and fails.
func scenarioProperty(f core.Factory, failed **scenario.Scenario) func(*rapid.T) {
	return func(t *rapid.T) {
		sc := scenarios.Draw(t, "scenario")
		c, err := judge.NewCase(sc)
		if err != nil {
			t.Fatalf("invalid grant: %v", err)
		}
		if fs := judge.CheckInline(f, c, new(oracle.Coverage)); len(fs) > 0 {
			if failed != nil {
				*failed = sc
			}
			t.Fatalf("%d ops: %v", len(sc.Steps), fs[0])
		}
	}
}

// machineRun is what a state-machine run did: its grant, world and ops.
type machineRun struct {
	grant   core.GrantSpec
	world   scenario.WorldSpec
	ops     []core.Op
	classes []attack.Class
}

// scenario returns the run as a scenario, classes included.
func (m machineRun) scenario() *scenario.Scenario {
	sc := &scenario.Scenario{Grant: m.grant, World: m.world, Steps: make([]scenario.Step, len(m.ops))}
	for i, op := range m.ops {
		sc.Steps[i] = scenario.Step{Op: op, Class: m.classes[i]}
	}
	return sc
}

// grantWorlds draws a scenario's grant and world, without ops.
var grantWorlds = rapid.Custom(func(t *rapid.T) *scenario.Scenario {
	d := newDraw(rapidsrc.New(t))
	defer d.release()
	g, w := drawGrantWorld(d, drawPlan(d))
	return &scenario.Scenario{Grant: g, World: w}
})

// shownOp is an op that prints compactly in rapid's output.
type shownOp struct{ op core.Op }

func (o shownOp) GoString() string { return formatOp(o.op) }

// opOf draws one op of class cl for sc. Some ops are the only one their
// class has for sc (a benign read of the one file of a grant-less world)
// and take no choice at all; rapid wants every generator to draw, so one
// bit is drawn first and ignored.
func opOf(cl attack.Class, sc *scenario.Scenario) *rapid.Generator[shownOp] {
	return rapid.Custom(func(t *rapid.T) shownOp {
		rapid.Bool().Draw(t, "unused")
		return shownOp{Op(rapidsrc.New(t), cl, sc)}
	})
}

// machineProperty watches f over a drawn grant and world, steps it with ops
// of every class (one action per class), and checks the findings after
// every step; on a finding it keeps the run in *failed (when not nil).
func machineProperty(f core.Factory, failed *machineRun) func(*rapid.T) {
	return func(t *rapid.T) {
		sc := grantWorlds.Draw(t, "grant and world")
		c, err := judge.NewCase(sc)
		if err != nil {
			t.Fatalf("invalid grant: %v", err)
		}
		run := judge.Watch(f, c, new(oracle.Coverage))
		defer func() {
			if err := run.Close(); err != nil {
				t.Errorf("closing the sandbox: %v", err)
			}
		}()
		var ops []core.Op
		var classes []attack.Class
		actions := make(map[string]func(*rapid.T), attack.NumClasses)
		for _, cl := range attack.All() {
			actions[cl.String()] = func(t *rapid.T) {
				op := opOf(cl, sc).Draw(t, "op").op
				ops, classes = append(ops, op), append(classes, cl)
				run.Step(op, cl)
			}
		}
		actions[""] = func(t *rapid.T) {
			if fs := run.Findings(); len(fs) > 0 {
				if failed != nil {
					*failed = machineRun{sc.Grant, sc.World, slices.Clone(ops), slices.Clone(classes)}
				}
				t.Fatalf("after %d steps: %v", len(ops), fs[0])
			}
		}
		t.Repeat(actions)
	}
}

// rawPrefix is the reference with the classic allow-list bug: a read the
// reference refuses as outside the roots is looked at again with
// strings.HasPrefix(path, root) on the raw strings, and read when that
// passes — so /workshop/secret is "under" /work/.
type rawPrefix struct {
	*core.Reference
	roots []string
	world core.World
}

func rawPrefixFactory(g core.Grant, w core.World) (core.Sandbox, error) {
	return rawPrefix{core.NewReference(g, w), g.FSRead(), w}, nil
}

func (s rawPrefix) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if r.Kind != core.FSReadDenied {
		return r
	}
	for _, root := range s.roots {
		if strings.HasPrefix(op.Args[0], strings.TrimSuffix(root, "/")) {
			if data, ok := s.world.Read(op.Args[0]); ok {
				return core.Result{Kind: core.OK, Data: data}
			}
			return core.Result{Kind: core.NotFound}
		}
	}
	return r
}

// unboundedShrink is the -rapid.shrinktime of expectFailure: rapid stops
// shrinking at that time limit or at its fixpoint (a round that shrinks
// nothing more), whichever comes first. A limit no machine reaches leaves
// the fixpoint, which depends on the counterexample alone, not on how fast
// a loaded machine shrinks; go test's -timeout still bounds the test.
const unboundedShrink = "24h"

// expectFailure runs prop with rapid.Check against a stand-in testing.TB,
// wants it to fail, and returns what rapid reported. Fail files are turned
// off for the run (an expected failure is no reproducer to keep), at least
// 100 checks are made whatever -rapid.checks says, and shrinking runs to
// its fixpoint whatever -rapid.shrinktime says.
func expectFailure(t *testing.T, prop func(*rapid.T)) string {
	t.Helper()
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.shrinktime", unboundedShrink)
	if n, _ := strconv.Atoi(flag.Lookup("rapid.checks").Value.String()); n < 100 {
		setFlag(t, "rapid.checks", "100")
	}
	tb := &stubTB{name: t.Name()}
	func() {
		defer func() {
			if r := recover(); r != nil && r != (stopNow{}) {
				panic(r)
			}
		}()
		rapid.Check(tb, prop)
	}()
	if !tb.failed {
		t.Fatalf("the property passed on a broken sandbox; rapid said:\n%s", tb.log.String())
	}
	out := tb.log.String()
	if !strings.Contains(out, "[rapid] failed") || !strings.Contains(out, "To reproduce") {
		t.Errorf("rapid's report does not say how to reproduce the failure:\n%s", out)
	}
	return out
}

func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag -%s", name)
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// stubTB is a rapid.TB that records instead of failing the test; FailNow
// and the Skip methods unwind with stopNow, which expectFailure recovers.
type stubTB struct {
	name   string
	failed bool
	log    strings.Builder
}

type stopNow struct{}

func (s *stubTB) Helper()                           {}
func (s *stubTB) Name() string                      { return s.name }
func (s *stubTB) Logf(format string, args ...any)   { fmt.Fprintf(&s.log, format+"\n", args...) }
func (s *stubTB) Log(args ...any)                   { fmt.Fprintln(&s.log, args...) }
func (s *stubTB) Skipf(format string, args ...any)  { s.Logf(format, args...); panic(stopNow{}) }
func (s *stubTB) Skip(args ...any)                  { s.Log(args...); panic(stopNow{}) }
func (s *stubTB) SkipNow()                          { panic(stopNow{}) }
func (s *stubTB) Errorf(format string, args ...any) { s.failed = true; s.Logf(format, args...) }
func (s *stubTB) Error(args ...any)                 { s.failed = true; s.Log(args...) }
func (s *stubTB) Fatalf(format string, args ...any) { s.Errorf(format, args...); panic(stopNow{}) }
func (s *stubTB) Fatal(args ...any)                 { s.Error(args...); panic(stopNow{}) }
func (s *stubTB) FailNow()                          { s.failed = true; panic(stopNow{}) }
func (s *stubTB) Fail()                             { s.failed = true }
func (s *stubTB) Failed() bool                      { return s.failed }
