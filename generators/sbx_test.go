package generators

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestScenariosPrintAsSBX: a generated scenario survives the .sbx round
// trip, so a campaign can write any finding as a reproducer.
func TestScenariosPrintAsSBX(t *testing.T) {
	for i := range 150 {
		g := seeded(i)
		sc := scenario.New()
		sc.Grant, sc.World = g.Grant, g.World
		sc.Steps = make([]scenario.Step, len(g.Ops))
		for j, op := range g.Ops {
			sc.Steps[j].Op = op
		}
		text := sc.Format()
		back, err := scenario.Parse("generated.sbx", text)
		if err != nil {
			t.Fatalf("scenario %d does not parse back: %v\n%#v", i, err, g)
		}
		if !back.Equal(sc) {
			t.Fatalf("scenario %d reads back differently:\n%s", i, text)
		}
	}
}
