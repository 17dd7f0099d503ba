package judge_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestParseID: every invariant's name parses to its ID, and nothing else
// does.
func TestParseID(t *testing.T) {
	for _, inv := range oracle.Invariants() {
		if id, ok := judge.ParseID(inv.Name); !ok || id != inv.ID {
			t.Errorf("ParseID(%q) = %d, %v; want %d", inv.Name, id, ok, inv.ID)
		}
	}
	for _, s := range []string{"", "Confinement", "confinement ", "unknown-invariant"} {
		if id, ok := judge.ParseID(s); ok {
			t.Errorf("ParseID(%q) = %d, want none", s, id)
		}
	}
	if judge.NumInvariants != len(oracle.Invariants()) {
		t.Errorf("NumInvariants is %d, the catalogue has %d", judge.NumInvariants, len(oracle.Invariants()))
	}
}

// TestCoverageSums: Add adds every counter, and the totals sum the
// classes; checked on the coverage of real checks, one of them failing.
func TestCoverageSums(t *testing.T) {
	var a, b oracle.Coverage
	for i := range 30 {
		c, err := judge.NewCase(generators.Generate(generators.NewSource(3, uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		judge.CheckInline(core.ReferenceFactory, c, &a)
		judge.CheckInline(leakyFactory, c, &b)
	}
	var sum oracle.Coverage
	judge.Add(&sum, &a)
	judge.Add(&sum, &b)
	if sum.Ops != a.Ops+b.Ops || sum.Scenarios != 60 {
		t.Errorf("sum has %d ops and %d scenarios, want %d and 60", sum.Ops, sum.Scenarios, a.Ops+b.Ops)
	}
	var ops uint64
	for cl := range attack.NumClasses {
		ops += judge.ClassOps(&sum, cl)
		if diff := cmp.Diff(sumClass(a.Classes[cl], b.Classes[cl]), sum.Classes[cl]); diff != "" {
			t.Errorf("class %s (-want +got):\n%s", cl, diff)
		}
	}
	if ops != sum.Ops {
		t.Errorf("the classes' ops add up to %d, not %d", ops, sum.Ops)
	}
	for _, inv := range oracle.Invariants() {
		var checked, violated uint64
		for cl := range sum.Classes {
			checked += sum.Classes[cl].Checked[inv.ID]
			violated += sum.Classes[cl].Violations[inv.ID]
		}
		if judge.Checked(&sum, inv.ID) != checked || judge.Violations(&sum, inv.ID) != violated {
			t.Errorf("%s: totals %d, %d; want %d, %d", inv.Name, judge.Checked(&sum, inv.ID), judge.Violations(&sum, inv.ID), checked, violated)
		}
	}
	if judge.Violations(&b, oracle.NoEffectOnDenial) == 0 {
		t.Error("the leaky sandbox was never caught: the sums are of no violation")
	}
}

func sumClass(a, b oracle.ClassCoverage) oracle.ClassCoverage {
	for i := range a.Checked {
		a.Checked[i] += b.Checked[i]
		a.Violations[i] += b.Violations[i]
	}
	for k := range a.Kinds {
		a.Kinds[k] += b.Kinds[k]
	}
	return a
}

// TestExpectedIsTheReferences: the model's predictions are what the
// reference returns, op for op, on generated scenarios.
func TestExpectedIsTheReferences(t *testing.T) {
	for i := range 200 {
		sc := generators.Generate(generators.NewSource(5, uint64(i)))
		c, err := judge.NewCase(sc)
		if err != nil {
			t.Fatal(err)
		}
		var got []core.Result
		judge.Check(core.ReferenceFactory, c, nil, judge.Options{Observe: func(r judge.StepReport) { got = append(got, r.Result) }})
		if diff := cmp.Diff(judge.Expected(c), got); diff != "" {
			t.Fatalf("scenario %d: the model's results (-want) are not the reference's (+got):\n%s", i, diff)
		}
	}
}

// leaky is the reference, except that an op it refuses still reads the
// world: a violation of no-effect-on-denial.
type leaky struct {
	*core.Reference
	world core.World
}

func (l leaky) Run(op core.Op) core.Result {
	r := l.Reference.Run(op)
	switch r.Kind {
	case core.PathTraversal, core.FSReadDenied, core.FSWriteDenied, core.EgressDenied, core.ToolDenied,
		core.UnknownOp, core.MalformedOp: // the refusals that must leave the world untouched, and go on
		l.world.Read("/")
	}
	return r
}

func leakyFactory(g core.Grant, w core.World) (core.Sandbox, error) {
	return leaky{core.NewReference(g, w), w}, nil
}

// TestQuoteDataCutsAtMaxQuoted: MaxQuoted is where the oracle cuts a datum.
func TestQuoteDataCutsAtMaxQuoted(t *testing.T) {
	whole := strings.Repeat("a", judge.MaxQuoted)
	if got := judge.QuoteData(whole); got != whole {
		t.Errorf("QuoteData of %d bytes = %q, want it whole", judge.MaxQuoted, got)
	}
	long := whole + "b"
	if got, want := judge.QuoteData(long), whole+"… (257 bytes in all)"; got != want {
		t.Errorf("QuoteData of %d bytes = %q, want %q", len(long), got, want)
	}
}

// TestNewCaseRejectsAnUnknownClass: a step whose class is past the
// catalogue is an error, as oracle.Check makes it, not a case that
// indexes past the coverage's tables.
func TestNewCaseRejectsAnUnknownClass(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte("grant fs_read /work/\nfs_read /work/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	sc.Steps[0].Class = attack.NumClasses
	if _, err := judge.NewCase(sc); !errors.Is(err, oracle.ErrUnknownClass) {
		t.Errorf("NewCase of a step of class %d: %v; want oracle.ErrUnknownClass", sc.Steps[0].Class, err)
	}
}
