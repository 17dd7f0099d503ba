package campaign

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// readsEverything is the reference built over a grant that reads under "/":
// a sandbox that ignores its fs_read roots. Its known minimal reproducer is
// one op, "fs_read /", with no grant and no world.
func readsEverything(g core.Grant, w core.World) core.Sandbox {
	wide := core.MustGrant(core.GrantSpec{FSRead: []string{"/"}, FSWrite: g.FSWrite(), NetHosts: g.NetHosts(), Tools: g.Tools(), Budgets: g.Budgets()})
	return core.NewReference(wide, w)
}

func TestReferenceSurvives(t *testing.T) {
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 2000, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) > 0 {
		t.Fatalf("the reference has findings: %+v", res.Findings[0])
	}
	if res.Checks != 2000 || res.Coverage.Scenarios != 2000 || res.Coverage.Ops < 2000*5 {
		t.Fatalf("checks %d, scenarios %d, ops %d", res.Checks, res.Coverage.Scenarios, res.Coverage.Ops)
	}
}

func TestFindsTheDefectAndMinimizesItToTheKnownScenario(t *testing.T) {
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 500, Workers: 2, Factory: readsEverything, StopAtFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatal("the campaign did not find a sandbox that reads everything")
	}
	for _, f := range res.Findings {
		if f.Invariant != oracle.Confinement && f.Invariant != oracle.VerdictMatchesModel {
			t.Errorf("found %s, want confinement or verdict-matches-model", f.Invariant)
		}
		want := scenario.New()
		want.Steps = []scenario.Step{{Op: core.Op{Kind: core.OpRead, Args: []string{"/"}},
			Expect: &scenario.Expect{Kind: core.FSReadDenied}}}
		if !f.Minimized.Equal(want) {
			t.Errorf("%s minimized to\n%s\nwant\n%s", f.Invariant, f.Minimized.Format(), want.Format())
		}
		if len(f.Original.Steps) <= len(f.Minimized.Steps) {
			t.Errorf("nothing was removed: %d ops", len(f.Original.Steps))
		}
		// The reproducer is a regression test: the reference passes it, the
		// defect fails it.
		if out, _ := replay.Run("min.sbx", f.Minimized, core.ReferenceFactory, nil); out.Failed() {
			t.Errorf("the reference fails the minimized scenario: %v", out.Findings)
		}
		if out, _ := replay.Run("min.sbx", f.Minimized, readsEverything, nil); !out.Failed() {
			t.Error("the broken sandbox passes the minimized scenario")
		}
	}
}

func TestResultsDoNotDependOnWorkers(t *testing.T) {
	run := func(workers int) *Result {
		res, err := Run(context.Background(), Config{Seed: 3, Checks: 120, Workers: workers, Factory: readsEverything})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(1), run(2)
	if a.Coverage != b.Coverage {
		t.Error("coverage differs between 1 and 2 workers")
	}
	texts := func(r *Result) []string {
		var out []string
		for _, f := range r.Findings {
			out = append(out, f.Invariant.String()+"\n"+string(f.Minimized.Format()))
		}
		return out
	}
	if !reflect.DeepEqual(texts(a), texts(b)) || len(a.Findings) == 0 {
		t.Errorf("findings differ between 1 and 2 workers:\n%v\n%v", texts(a), texts(b))
	}
}

func TestInterruptedCampaignStopsCleanly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Config{Seed: 1, Checks: 1_000_000, Workers: 2, Factory: readsEverything})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Checks > 10 {
		t.Fatalf("interrupted %v after %d checks", res.Interrupted, res.Checks)
	}
}

func TestWriteFindingsAnnotatesAndIsStable(t *testing.T) {
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 200, Workers: 2, Factory: readsEverything, StopAtFirst: true})
	if err != nil || len(res.Findings) == 0 {
		t.Fatal(err, "no findings")
	}
	dir := t.TempDir()
	paths, err := WriteFindings(dir, res, "test-double")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# finding: ", "# step 1: fs_read /", "seed 1, check ", "minimized from ", "# reproduce: sbxfuzz replay --sut test-double " + filepath.ToSlash(paths[0])} {
		if !strings.Contains(string(text), want) {
			t.Errorf("finding file lacks %q:\n%s", want, text)
		}
	}
	sc, err := scenario.Parse(paths[0], text)
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := replay.Run(paths[0], sc, core.ReferenceFactory, nil); out.Failed() {
		t.Errorf("the written finding fails on the reference")
	}
	again, _ := Run(context.Background(), Config{Seed: 1, Checks: 200, Workers: 1, Factory: readsEverything, StopAtFirst: true})
	paths2, err := WriteFindings(dir, again, "test-double")
	if err != nil || !reflect.DeepEqual(paths, paths2) {
		t.Errorf("a second run wrote %v, the first %v (%v)", paths2, paths, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(paths) {
		t.Errorf("%d files in the findings directory for %d findings", len(entries), len(paths))
	}
}
