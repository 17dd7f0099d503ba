package campaign

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// readsEverything is the reference built over a grant that reads under "/":
// a sandbox that ignores its fs_read roots. Its known minimal reproducer is
// one op, "fs_read /", with no grant and no world.
func readsEverything(g core.Grant, w core.World) (core.Sandbox, error) {
	wide := must.Grant(core.GrantSpec{FSRead: []string{"/"}, FSWrite: g.FSWrite(), NetHosts: g.NetHosts(), Tools: g.Tools(), Budgets: g.Budgets()})
	return core.NewReference(wide, w), nil
}

// broken is the sandbox that reads everything, as a campaign target.
var broken = sut.Static("test-double", readsEverything)

// scenarioOpts compare scenarios as Scenario.Equal does (nil and empty
// alike, source lines ignored), and also ignore the attack classes, which a
// parsed or hand-built scenario does not carry.
var scenarioOpts = cmp.Options{
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreFields(scenario.Step{}, "Line", "Class"),
	cmpopts.EquateComparable(netip.Addr{}),
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
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 500, Workers: 2, Target: broken, StopAtFirst: true})
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
		if diff := cmp.Diff(*want, *f.Minimized, scenarioOpts); diff != "" || !f.Minimized.Equal(want) {
			t.Errorf("%s minimized scenario mismatch (-want +got):\n%s\ngot:\n%s", f.Invariant, diff, f.Minimized.Format())
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
		res, err := Run(context.Background(), Config{Seed: 3, Checks: 120, Workers: workers, Target: broken})
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
	if len(a.Findings) == 0 {
		t.Error("no findings with 1 worker")
	}
	if diff := cmp.Diff(texts(a), texts(b)); diff != "" {
		t.Errorf("findings mismatch between 1 and 2 workers (-1 worker +2 workers):\n%s", diff)
	}
}

func TestInterruptedCampaignStopsCleanly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Config{Seed: 1, Checks: 1_000_000, Workers: 2, Target: broken})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Checks > 10 {
		t.Fatalf("interrupted %v after %d checks", res.Interrupted, res.Checks)
	}
}

func TestWriteFindingsAnnotatesAndIsStable(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 200, Workers: 2, Target: broken, StopAtFirst: true, Out: dir})
	if err != nil || len(res.Findings) == 0 {
		t.Fatal(err, "no findings")
	}
	paths := findingPaths(res)
	text, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# finding: ", "# step 1: fs_read /", "# sandbox: test-double; seed 1, check ", "minimized from ",
		"; expectations are the oracle model's results\n", "# reproduce: sbxfuzz replay --sut test-double " + filepath.ToSlash(paths[0])} {
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
	again, err := Run(context.Background(), Config{Seed: 1, Checks: 200, Workers: 1, Target: broken, StopAtFirst: true, Out: dir})
	if err != nil {
		t.Errorf("writing the second run's findings: %v", err)
	}
	paths2 := findingPaths(again)
	if diff := cmp.Diff(paths, paths2); diff != "" {
		t.Errorf("second run's paths mismatch (-first +second):\n%s", diff)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(paths) {
		t.Errorf("%d files in the findings directory for %d findings", len(entries), len(paths))
	}
}

// TestTargetThatCannotStart: a target whose session does not start fails
// the campaign with its error, naming the target.
func TestTargetThatCannotStart(t *testing.T) {
	errDown := errors.New("the sandbox host is down")
	down := sut.Target{Name: "down", Start: func() (core.Factory, func() error, error) { return nil, nil, errDown }}
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 10, Workers: 2, Target: down})
	if !errors.Is(err, errDown) || !strings.Contains(fmt.Sprint(err), "down") || res != nil {
		t.Fatalf("Run = %v, %v; want no result and an error that wraps %q", res, err, errDown)
	}
}

func findingPaths(res *Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Path)
	}
	return out
}

// TestProgressCountsEveryWorker: the progress reports of a running
// campaign count the checks and ops of all its workers, never going back,
// and never past what the result counts in the end. The campaign is
// stopped after its second report, not after a time that a loaded machine
// might pass before the first; its duration only bounds a campaign that
// never reports.
func TestProgressCountsEveryWorker(t *testing.T) {
	const wanted, patience = 2, 5 * time.Minute
	var (
		mu      sync.Mutex
		reports []Progress
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Run(ctx, Config{Seed: 1, Duration: patience, Workers: 2, Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if reports = append(reports, p); len(reports) == wanted {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) < wanted {
		t.Fatalf("%d progress reports in %v, want %d", len(reports), patience, wanted)
	}
	if res.Checks != int(res.Coverage.Scenarios) {
		t.Errorf("the result counts %d checks, its coverage %d scenarios", res.Checks, res.Coverage.Scenarios)
	}
	var last Progress
	for _, p := range reports {
		if p.Checks < last.Checks || p.Ops < last.Ops {
			t.Errorf("progress went back: %+v after %+v", p, last)
		}
		if p.Checks <= 0 || p.Ops < uint64(p.Checks) {
			t.Errorf("progress %+v: no checks, or fewer ops than checks", p)
		}
		last = p
	}
	if last.Checks > int64(res.Checks) || last.Ops > res.Coverage.Ops {
		t.Errorf("progress %+v is past the result: %d checks, %d ops", last, res.Checks, res.Coverage.Ops)
	}
}

// TestThroughputIsTheChecks: a campaign's ops per second are over the time
// its checks took, not the minimizing of their findings after them, which
// Elapsed counts too.
func TestThroughputIsTheChecks(t *testing.T) {
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 50, Workers: 1, Target: broken})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatal("no findings to minimize")
	}
	if res.Checked <= 0 || res.Checked >= res.Elapsed {
		t.Fatalf("checks took %v of %v: want some, and less than the whole, which minimized findings after them", res.Checked, res.Elapsed)
	}
	if got, want := res.OpsPerSecond(), float64(res.Coverage.Ops)/res.Checked.Seconds(); got != want {
		t.Errorf("OpsPerSecond %.0f, want %.0f (ops over the checks' time)", got, want)
	}
}
