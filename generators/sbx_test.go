package generators

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestScenariosPrintAsSBX: a generated scenario survives the .sbx round
// trip, so a campaign can write any finding as a reproducer.
func TestScenariosPrintAsSBX(t *testing.T) {
	for i := range 150 {
		sc := seeded(i)
		text := sc.Format()
		back, err := scenario.Parse("generated.sbx", text)
		if err != nil {
			t.Fatalf("scenario %d does not parse back: %v\n%s", i, err, text)
		}
		// A .sbx file carries no classes: parsed ops are Unlabelled.
		opts := cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(scenario.Step{}, "Line", "Class"),
			cmpopts.EquateComparable(netip.Addr{})}
		if diff := cmp.Diff(*sc, *back, opts); diff != "" || !back.Equal(sc) {
			t.Fatalf("scenario %d read back mismatch (-want +got):\n%s\n%s", i, diff, text)
		}
	}
}
