package campaign

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// killBudget is the fixed check budget every mutant must fall within from
// seed 1 (the target is 10,000).
const killBudget = 10000

func TestEveryMutantIsKilledAndTheReferenceSurvives(t *testing.T) {
	ms := mutants.All()
	if len(ms) < 20 {
		t.Fatalf("only %d mutants", len(ms))
	}
	kills := KillMutants(context.Background(), ms, 1, killBudget, 0)
	for _, k := range kills {
		if !k.Killed {
			t.Errorf("mutant %s survived %d checks from seed 1", k.Mutant, k.Checks)
			continue
		}
		if k.Checks > killBudget || k.ReproducerOps > killerOps(t, k.Mutant) {
			t.Errorf("mutant %s: killed after %d checks with a %d-op reproducer; the hand-written killer has %d ops:\n%s",
				k.Mutant, k.Checks, k.ReproducerOps, killerOps(t, k.Mutant), k.Reproducer)
		}
		t.Logf("%-24s %-24s %5d checks %6.3fs %d ops", k.Mutant, k.Invariant, k.Checks, k.Seconds, k.ReproducerOps)
	}
	ref := KillMutants(context.Background(), []mutants.Mutant{{Name: "reference", Factory: core.ReferenceFactory}}, 1, killBudget, 0)
	if ref[0].Killed {
		t.Errorf("the reference was 'killed' by %s:\n%s", ref[0].Invariant, ref[0].Reproducer)
	}
}

// killerOps counts the ops of the hand-written killer of a mutant.
func killerOps(t *testing.T, name string) int {
	t.Helper()
	p := filepath.Join("..", "..", "corpus", "mutants", name+".sbx")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(p, src)
	if err != nil {
		t.Fatal(err)
	}
	return len(sc.Steps)
}

// TestKillMutantsInterrupted: once the context has ended, the mutants not
// started yet are not run: an interrupted kill table returns at once, each
// of their rows not killed, in no checks.
func TestKillMutantsInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, k := range KillMutants(ctx, mutants.All(), 1, killBudget, 0) {
		if k.Killed || k.Checks != 0 || k.Mutant == "" {
			t.Errorf("mutant %q after the interrupt: killed %v in %d checks, want not run", k.Mutant, k.Killed, k.Checks)
		}
	}
}
