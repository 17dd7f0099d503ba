package campaign

import (
	"context"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
)

// TestReportCarriesViolationsByClass: the report of a campaign that found
// violations has, for every invariant, its violations per attack class,
// summing to its total, with the classes of its findings among them.
func TestReportCarriesViolationsByClass(t *testing.T) {
	m, ok := mutants.Lookup("raw-prefix")
	if !ok {
		t.Fatal("no mutant raw-prefix")
	}
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 200, Workers: 1, Target: sut.Static("mutant:raw-prefix", m.Factory)})
	if err != nil {
		t.Fatal(err)
	}
	rep := NewReport(res, "mutant:raw-prefix")
	violated := 0
	for _, row := range rep.Invariants {
		if row.ViolationsByClass == nil {
			t.Fatalf("%s: violations per class not known", row.ID)
		}
		var sum uint64
		for _, n := range row.ViolationsByClass {
			sum += n
		}
		if sum != row.Violations {
			t.Errorf("%s: %d violations per class, %d in all", row.ID, sum, row.Violations)
		}
		if row.Violations > 0 {
			violated++
		}
	}
	if violated == 0 || len(rep.Findings) == 0 {
		t.Fatalf("raw-prefix violated nothing in 200 checks: the test shows nothing")
	}
	for _, f := range rep.Findings {
		for _, row := range rep.Invariants {
			if row.ID == f.Invariant && row.ViolationsByClass[f.Class] == 0 {
				t.Errorf("finding of %s in class %s, which has no violations of it", f.Invariant, f.Class)
			}
		}
	}
}
