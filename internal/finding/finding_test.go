package finding

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/inert"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/minimize"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func parse(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.sbx", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func firstFinding(t *testing.T, f core.Factory, sc *scenario.Scenario, timeout time.Duration) oracle.Finding {
	t.Helper()
	fs, err := oracle.Check(f, sc, nil, oracle.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatal("the scenario fails nothing")
	}
	return fs[0]
}

// TestPipeline: a finding is minimized, explained, given the model's
// results as expectations, annotated and written where its name says, and
// the written file fails the same way on the sandbox.
func TestPipeline(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	sc := parse(t, `grant fs_read /work
grant tool echo
file /work/a hello
file /workshop/secret LEAK
fs_read /work/a
tool echo hi
fs_read /workshop/secret
fs_read /work/a
`)
	p := &Pipeline{Factory: m.Factory, SUT: "mutant:raw-prefix"}
	f := p.Process(sc, firstFinding(t, m.Factory, sc, 0), "seed 9, check 3")
	if f.Invariant != oracle.Confinement || f.Step != 3 {
		t.Fatalf("finding %s at step %d, want confinement at step 3", f.Invariant, f.Step)
	}
	if len(sc.Steps) != 4 || sc.Comment != nil {
		t.Fatalf("Process changed the scenario it was given")
	}
	want := parse(t, "grant fs_read /work\nfs_read /works => fs_read_denied\n")
	if diff := cmp.Diff(string(want.Format()), string(f.Minimized.Format())); diff != "" {
		t.Fatalf("minimized mismatch (-want +got):\n%s", diff)
	}
	dir := t.TempDir()
	path, err := p.Write(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != f.FileName() || !strings.HasPrefix(f.FileName(), "confinement-") {
		t.Fatalf("written as %s, named %s", path, f.FileName())
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"# finding: confinement\n",
		"# step 1: fs_read /works returned",
		"# sandbox: mutant:raw-prefix; seed 9, check 3; class of the violating op: unlabelled\n",
		"# minimized from 4 ops to 1 (",
		"# reproduce: sbxfuzz replay --sut mutant:raw-prefix " + filepath.ToSlash(path) + "\n",
	} {
		if !strings.Contains(string(text), line) {
			t.Errorf("the written finding lacks %q:\n%s", line, text)
		}
	}
	again := parse(t, string(text))
	if got := firstFinding(t, m.Factory, again, 0); got.Invariant != oracle.Confinement {
		t.Errorf("the written finding fails %s on the mutant, want confinement", got.Invariant)
	}
	if dirs, _ := os.ReadDir(dir); len(dirs) != 1 {
		t.Errorf("%d files in the output directory, want the finding alone (no temp file left)", len(dirs))
	}
}

// hangsOnTools is the reference, except that tool ops block until the
// sandbox is closed.
type hangsOnTools struct {
	*core.Reference
	closed chan struct{}
	once   *sync.Once
}

func (s hangsOnTools) Run(op core.Op) core.Result {
	if op.Kind == core.OpTool {
		<-s.closed
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

func (s hangsOnTools) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

// The tests of hangs run in a synctest bubble (synctest.Test): its clock
// moves only when every goroutine in it waits, so an op that returns takes
// no time however loaded the machine (none is taken for a hang), and the
// time a minimization takes is the sum of its timeouts, exactly.

// TestHangMinimizedQuickly: a hang in a long scenario, judged with a 2 s
// op timeout, minimizes to the op that hung well within a minute: 20 s on
// the bubble's clock, the sum of the timeouts of the candidates that hang
// (each gets HangTimeout, not the 2 s).
func TestHangMinimizedQuickly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hangs := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return hangsOnTools{core.NewReference(g, w), make(chan struct{}), new(sync.Once)}, nil
		}
		var b strings.Builder
		b.WriteString("grant fs_read /work/\ngrant fs_write /work/\ngrant tool echo\nfile /work/a hello\n")
		for i := range 40 {
			if i == 25 {
				b.WriteString("tool echo hi\n")
			}
			b.WriteString("fs_read /work/a\nfs_write /work/b x\n")
		}
		sc := parse(t, b.String())
		found := firstFinding(t, hangs, sc, 2*time.Second)
		if !found.Hang || found.Step != 51 {
			t.Fatalf("finding %+v, want a hang at step 51", found)
		}
		p := &Pipeline{Factory: hangs, SUT: "hangs", Timeout: 2 * time.Second}
		start := time.Now()
		f := p.Process(sc, found, "test")
		took := time.Since(start)
		t.Logf("minimized a hang from %d ops to %d in %v (%d candidates)", len(sc.Steps), len(f.Minimized.Steps), took, f.Stats.Calls)
		if took > 20*time.Second {
			t.Errorf("minimizing the hang took %v, want at most 20 s", took)
		}
		if n := len(f.Minimized.Steps); n != 1 || f.Minimized.Steps[0].Op.Kind != core.OpTool {
			t.Errorf("minimized to:\n%s\nwant the tool op alone", f.Minimized.Format())
		}
	})
}

// TestHangOnASlowStarter: a sandbox slower to start than the lowered
// timeout of hang candidates still minimizes to the op that hangs, not to
// a scenario that only hangs while the sandbox is built.
func TestHangOnASlowStarter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := func(g core.Grant, w core.World) (core.Sandbox, error) {
			time.Sleep(HangTimeout * 5 / 4)
			return hangsOnTools{core.NewReference(g, w), make(chan struct{}), new(sync.Once)}, nil
		}
		sc := parse(t, "grant tool echo\ngrant fs_read /work/\nfile /work/a hello\nfs_read /work/a\ntool echo hi\nfs_read /work/a\n")
		found := firstFinding(t, slow, sc, 2*time.Second)
		if !found.Hang || found.Step != 2 {
			t.Fatalf("finding %+v, want a hang at step 2", found)
		}
		f := (&Pipeline{Factory: slow, SUT: "slow", Timeout: 2 * time.Second}).Process(sc, found, "test")
		if n := len(f.Minimized.Steps); n != 1 || f.Minimized.Steps[0].Op.Kind != core.OpTool {
			t.Fatalf("minimized to:\n%s\nwant the tool op alone", f.Minimized.Format())
		}
	})
}

// coldStart starts sessions of a sandbox in a process that is wrong only
// in the first scenario it judges once started (the raw-prefix mutant
// then, the reference after: a cache filled at the first use, say). Every
// replay, which starts it afresh, fails; a session that judged a scenario
// before passes. ends counts the sessions ended.
func coldStart(ends *int) func() (core.Factory, func() error, error) {
	return firstScenario(true, ends)
}

// warmOnly starts sessions of a sandbox in a process that is right in
// the first scenario it judges once started and wrong after it (the
// raw-prefix mutant: a cache that answers for what it checked before,
// say): a replay, which starts it afresh, passes.
func warmOnly() func() (core.Factory, func() error, error) { return firstScenario(false, new(int)) }

// firstScenario starts sessions of a sandbox that is the raw-prefix
// mutant in the first scenario a session judges and the reference after
// it (wrongFirst), or the other way round; ends counts the sessions ended.
func firstScenario(wrongFirst bool, ends *int) func() (core.Factory, func() error, error) {
	m, _ := mutants.Lookup("raw-prefix")
	return func() (core.Factory, func() error, error) {
		var mu sync.Mutex
		built := 0
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			mu.Lock()
			built++
			first := built <= 2 // the first scenario's run and its replay
			mu.Unlock()
			if first == wrongFirst {
				return m.Factory(g, w)
			}
			return core.ReferenceFactory(g, w)
		}
		return f, func() error { *ends++; return nil }, nil
	}
}

// longPrefixSibling is a scenario of 40 ops whose 21st reads a prefix
// sibling of the root: the raw-prefix mutant lets it through.
func longPrefixSibling(t *testing.T) *scenario.Scenario {
	var b strings.Builder
	b.WriteString("grant fs_read /work\nfile /work/a hello\nfile /workshop/secret LEAK\n")
	for i := range 40 {
		if i == 20 {
			b.WriteString("fs_read /workshop/secret\n")
		} else {
			b.WriteString("fs_read /work/a\n")
		}
	}
	return parse(t, b.String())
}

// TestReplayingFindingIsMinimized: a finding that fails on every fresh
// start of the sandbox, as 'sbxfuzz replay' makes one, is minimized to its
// one op and explained, never called nondeterministic or flaky, whether
// the pipeline's session had judged other scenarios before or was fresh
// for this one (then it passes from the second candidate on).
func TestReplayingFindingIsMinimized(t *testing.T) {
	sc := longPrefixSibling(t)
	for _, used := range []bool{true, false} {
		ends := 0
		start := coldStart(&ends)
		fresh, _, _ := start()
		found := firstFinding(t, fresh, sc, 0)
		if found.Invariant != oracle.Confinement || found.Step != 21 {
			t.Fatalf("finding %+v, want confinement at step 21", found)
		}
		session, _, _ := start()
		if used {
			firstFinding(t, session, sc, 0) // the session's first scenario
		}
		p := &Pipeline{Factory: session, SUT: "cold", Start: start}
		f := p.Process(sc, found, "test")
		if f.Flaky || len(f.Minimized.Steps) != 1 || f.MinStep != 1 || !strings.Contains(f.MinDetail, "is under no fs_read root") {
			t.Errorf("used session %v: flaky %v, minimized to %d ops, explained %q; want 1 op and the confinement words",
				used, f.Flaky, len(f.Minimized.Steps), f.Explanation())
		}
		if ends < 2 {
			t.Errorf("used session %v: %d fresh sessions ended, want one for each candidate judged afresh", used, ends)
		}
	}
}

// TestFlakyFindingKeepsItsWords: a finding whose scenario fails in none of
// the judgements after the one that found it is left as it is, marked
// flaky in its header, with the oracle's words on the run that found it.
func TestFlakyFindingKeepsItsWords(t *testing.T) {
	sc := longPrefixSibling(t)
	ends := 0
	start := coldStart(&ends)
	once, _, _ := start()
	found := firstFinding(t, once, sc, 0)
	// Every session starts warm: the sandbox never fails again.
	warm := func() (core.Factory, func() error, error) {
		f, end, err := start()
		firstFinding(t, f, sc, 0)
		return f, end, err
	}
	session, _, _ := warm()
	p := &Pipeline{Factory: session, SUT: "warm", Start: warm}
	f := p.Process(sc, found, "test")
	if !f.Flaky || f.Replays != MaxReplays || len(f.Minimized.Steps) != 40 || f.MinDetail != found.Detail || f.MinStep != 21 {
		t.Fatalf("flaky %v after %d replays, %d ops, explained %q; want flaky after %d, 40 ops, the words of the run that found it",
			f.Flaky, f.Replays, len(f.Minimized.Steps), f.Explanation(), MaxReplays)
	}
	p.Annotate(f, "x.sbx")
	header := strings.Join(f.Minimized.Comment, "\n")
	for _, want := range []string{"flaky: it did not fail again in 3 judgements; when found, step 21: " + found.Detail, "not minimized: flaky"} {
		if !strings.Contains(header, want) {
			t.Errorf("the header lacks %q:\n%s", want, header)
		}
	}
}

// TestStatefulFinding: a finding that fails on the session that judged
// other scenarios first, every time, but not on a fresh one is minimized
// there and then called stateful, its header saying that the file alone
// passes; one that fails on a fresh session too is not.
func TestStatefulFinding(t *testing.T) {
	sc := longPrefixSibling(t)
	for _, tc := range []struct {
		name     string
		start    func() (core.Factory, func() error, error)
		stateful bool
	}{{"warm only", warmOnly(), true}, {"always", func() (core.Factory, func() error, error) {
		m, _ := mutants.Lookup("raw-prefix")
		return m.Factory, func() error { return nil }, nil
	}, false}} {
		session, _, _ := tc.start()
		if _, err := oracle.Check(session, sc, nil, oracle.Options{}); err != nil { // the session's first scenario
			t.Fatal(err)
		}
		found := firstFinding(t, session, sc, 0)
		p := &Pipeline{Factory: session, SUT: "warm", Start: tc.start}
		f := p.Process(sc, found, "test")
		if f.Flaky || f.Stateful != tc.stateful || len(f.Minimized.Steps) != 1 {
			t.Errorf("%s: flaky %v, stateful %v, %d ops; want stateful %v and 1 op", tc.name, f.Flaky, f.Stateful, len(f.Minimized.Steps), tc.stateful)
			continue
		}
		p.Annotate(f, "x.sbx")
		header := strings.Join(f.Minimized.Comment, "\n")
		p.AnnotateInPlace(f, sc, 0, "")
		header += "\n" + strings.Join(f.Minimized.Comment, "\n")
		for _, want := range []string{"flaky: it fails only on a sandbox that judged other scenarios first", "alone, on a fresh one, this file passes", "on a sandbox that had judged it before"} {
			if strings.Contains(header, want) != tc.stateful {
				t.Errorf("%s: the header says %q: %v, want %v:\n%s", tc.name, want, !tc.stateful, tc.stateful, header)
			}
		}
	}
}

// TestInterruptedFindingIsNotFlaky: a finding processed once the
// campaign's stop has closed is written as it is, cut short, and not
// called flaky: it was never judged again.
func TestInterruptedFindingIsNotFlaky(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	sc := longPrefixSibling(t)
	found := firstFinding(t, m.Factory, sc, 0)
	stop := make(chan struct{})
	close(stop)
	p := &Pipeline{Factory: m.Factory, SUT: "mutant:raw-prefix", Limits: minimize.Limits{Stop: stop}}
	f := p.Process(sc, found, "test")
	if f.Flaky || !f.Stats.Cut || f.Replays != 0 || len(f.Minimized.Steps) != 40 || f.MinDetail != found.Detail {
		t.Errorf("flaky %v, cut %v, %d replays, %d ops, explained %q; want cut, not flaky, the original words",
			f.Flaky, f.Stats.Cut, f.Replays, len(f.Minimized.Steps), f.Explanation())
	}
}

// TestAnnotateInPlace: a finding minimized in its own file keeps the
// file's comment and gains one line naming the invariant, the sandbox,
// the sizes, whether a limit cut it short and, when the adapter left ops
// out first, how many.
func TestAnnotateInPlace(t *testing.T) {
	orig := parse(t, "# the file's own words\ngrant fs_read /work\nfs_read /works\nfs_read /work/a\nfs_read /work/b\n")
	confinement, _ := judge.ParseID("confinement")
	f := &Finding{Invariant: confinement, Minimized: parse(t, "grant fs_read /work\nfs_read /works\n"), Stats: minimize.Stats{Calls: 7}}
	p := &Pipeline{SUT: "mutant:raw-prefix"}
	for _, tc := range []struct {
		leftOut int
		cut     bool
		want    []string
	}{
		{0, false, []string{"the file's own words", "minimized for confinement on mutant:raw-prefix: 3 ops to 1 (7 candidates tried)"}},
		{2, false, []string{"the file's own words", "minimized for confinement on mutant:raw-prefix: 3 ops to 1 (7 candidates tried; 2 ops mutant:raw-prefix cannot express left out first)"}},
		{0, true, []string{"the file's own words", "minimized for confinement on mutant:raw-prefix: 3 ops to 1 (7 candidates tried; cut short by the minimizer's limits: minimizing the file again goes on)"}},
	} {
		f.Stats.Cut = tc.cut
		p.AnnotateInPlace(f, orig, tc.leftOut, "")
		if diff := cmp.Diff(tc.want, f.Minimized.Comment); diff != "" {
			t.Errorf("%d left out: header (-want +got):\n%s", tc.leftOut, diff)
		}
	}
	if len(orig.Comment) != 1 {
		t.Errorf("the file's scenario was changed: its comment is %q", orig.Comment)
	}
}

// TestAnnotateInPlaceOfAFinding: minimizing a finding file sbxfuzz wrote
// writes its invariant and the oracle's words on the new scenario anew,
// drops the lines on how it was minimized before, names the file written
// in the command that reproduces it, and keeps where it was found and the
// user's own lines.
func TestAnnotateInPlaceOfAFinding(t *testing.T) {
	orig := parse(t, `# finding: confinement
# step 3: fs_read /workshop/x returned ok with "résumé ✓", old words
# sandbox: mutant:raw-prefix; seed 1, check 4; class of the violating op: prefix-sibling
# minimized from 9 ops to 3 (40 candidates tried, cut short by the minimizer's limits: sbxfuzz minimize -w FILE goes on); expectations are the oracle model's results
# reproduce: sbxfuzz replay --sut mutant:raw-prefix f.sbx
# seen on Tuesday
grant fs_read /work
fs_read /works
fs_read /work/a
fs_read /work/b
`)
	confinement, _ := judge.ParseID("confinement")
	f := &Finding{Invariant: confinement, Minimized: parse(t, "grant fs_read /work\nfs_read /works\n"), Stats: minimize.Stats{Calls: 7},
		MinStep: 1, MinDetail: "fs_read /works returned ok, new words"}
	(&Pipeline{SUT: "mutant:raw-prefix"}).AnnotateInPlace(f, orig, 0, "copy.sbx")
	want := []string{
		"finding: confinement",
		"step 1: fs_read /works returned ok, new words",
		"sandbox: mutant:raw-prefix; seed 1, check 4; class of the violating op: prefix-sibling",
		"minimized for confinement on mutant:raw-prefix: 3 ops to 1 (7 candidates tried)",
		"reproduce: sbxfuzz replay --sut mutant:raw-prefix copy.sbx",
		"seen on Tuesday",
	}
	if diff := cmp.Diff(want, f.Minimized.Comment); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
}

// slowFirstOp is a sandbox whose first op takes a while before it runs:
// a real server on a loaded machine.
type slowFirstOp struct {
	core.Sandbox
	once sync.Once
	wait time.Duration
}

func (s *slowFirstOp) Run(op core.Op) core.Result {
	s.once.Do(func() { time.Sleep(s.wait) })
	return s.Sandbox.Run(op)
}

// TestSlowJudgementIsNotAPass: a finding judged again on a machine so
// slow that the judgement times out on an op is judged once more with a
// longer timeout, and confirmed, rather than called flaky: a timeout says
// nothing of a confinement finding.
func TestSlowJudgementIsNotAPass(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	slow := func(g core.Grant, w core.World) (core.Sandbox, error) {
		sb, err := m.Factory(g, w)
		return &slowFirstOp{Sandbox: sb, wait: 300 * time.Millisecond}, err
	}
	sc := parse(t, "grant fs_read /work\nfile /workshop/secret LEAK\n\nfs_read /workshop/secret\n")
	found := firstFinding(t, slow, sc, 0)
	p := &Pipeline{Factory: slow, SUT: "slow", Timeout: 100 * time.Millisecond, Limits: minimize.Limits{Calls: 2}}
	f := p.Process(sc, found, "test")
	if f.Flaky || f.Invariant != found.Invariant {
		t.Fatalf("flaky %v, %s after %d judgements; want the %s finding confirmed", f.Flaky, f.Invariant, f.Replays, found.Invariant)
	}
}

// TestUnreproducedCandidateKeepsTheOriginal: a candidate the minimizer
// took because it failed once (a hang the machine's load made, say), and
// that fails neither on the session nor on a fresh one when explained, is
// not written: the original, confirmed to fail, is kept, its header saying
// why, so that the file fails on replay.
func TestUnreproducedCandidateKeepsTheOriginal(t *testing.T) {
	sc := longPrefixSibling(t)
	m, _ := mutants.Lookup("raw-prefix")
	var (
		mu     sync.Mutex
		onceOK int // builds of a world without /work/a that were wrong: its run and its replay
	)
	// The sandbox is wrong wherever /work/a is in the world, and in the
	// first world without it only: every later one is right.
	start := func() (core.Factory, func() error, error) {
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			if _, full := w.(interface{ Lookup(string) (string, bool) }).Lookup("/work/a"); full {
				return m.Factory(g, w)
			}
			mu.Lock()
			defer mu.Unlock()
			if onceOK < 2 {
				onceOK++
				return m.Factory(g, w)
			}
			return core.ReferenceFactory(g, w)
		}
		return f, func() error { return nil }, nil
	}
	session, _, _ := start()
	found := firstFinding(t, session, sc, 0)
	p := &Pipeline{Factory: session, SUT: "fickle", Start: start}
	f := p.Process(sc, found, "test")
	if f.Flaky || f.Unreproduced == 0 || len(f.Minimized.Steps) != len(sc.Steps) || f.MinStep != found.Step {
		t.Fatalf("flaky %v, unreproduced %d, %d ops, step %d; want the %d-op original kept at step %d after an unreproduced candidate",
			f.Flaky, f.Unreproduced, len(f.Minimized.Steps), f.MinStep, len(sc.Steps), found.Step)
	}
	p.Annotate(f, "x.sbx")
	header := strings.Join(f.Minimized.Comment, "\n")
	if want := fmt.Sprintf("not minimized: its %d-op candidate did not fail once more when judged again, so the 40 ops that did are kept", f.Unreproduced); !strings.Contains(header, want) {
		t.Errorf("the header lacks %q:\n%s", want, header)
	}
	if fd := firstFinding(t, m.Factory, f.Minimized, 0); fd.Invariant != found.Invariant {
		t.Errorf("the file kept fails %s, want %s", fd.Invariant, found.Invariant)
	}
}

// TestCommandName: a sandbox's command whose words were anchored (made
// absolute) is named by them, each quoted as a shell reads it back, so
// that it splits back into them; one whose words were not is named as
// given, quoting and all.
func TestCommandName(t *testing.T) {
	argv := []string{"node", "my srv.js", "--root", "it's"}
	anchored := []string{"node", "/abs/my srv.js", "--root", "it's"}
	got := CommandName(`node 'my srv.js' --root "it's"`, argv, anchored)
	if want := `node '/abs/my srv.js' --root 'it'\''s'`; got != want {
		t.Errorf("CommandName = %q, want %q", got, want)
	}
	if words, err := proc.SplitWords(got); err != nil || !slices.Equal(words, anchored) {
		t.Errorf("%q splits into %q (%v), want %q", got, words, err, anchored)
	}
	if got := CommandName(`node "a.js"`, []string{"node", "a.js"}, []string{"node", "a.js"}); got != `node "a.js"` {
		t.Errorf("CommandName of words not anchored = %q, want the command as given", got)
	}
}

// TestPipelineKeepsTheCause: a Pipeline that names a finding's cause
// minimizes it only to candidates failing at an op of that cause: here
// the op's path, which without it (or past it) shrinks from
// /workshop/secret to /works (the same invariant, met another way). The
// header names the cause of the op the file fails at.
func TestPipelineKeepsTheCause(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	sc := parse(t, "grant fs_read /work\nfile /workshop/secret LEAK\nfs_read /workshop/secret\n")
	path := func(sc *scenario.Scenario, f oracle.Finding) string { return "path " + sc.Steps[f.Step-1].Op.Args[0] }
	found := firstFinding(t, m.Factory, sc, 0)
	for _, tc := range []struct {
		cause      func(*scenario.Scenario, oracle.Finding) string
		past       bool
		want, said string
	}{{nil, false, "/works", ""}, {path, false, "/workshop/secret", "; cause: path /workshop/secret"}, {path, true, "/works", "; cause: path /works"}} {
		p := &Pipeline{Factory: m.Factory, SUT: "mutant:raw-prefix", Cause: tc.cause, ShrinkPastCause: tc.past}
		f := p.Process(sc, found, "test")
		if got := f.Minimized.Steps[len(f.Minimized.Steps)-1].Op.Args[0]; f.Invariant != oracle.Confinement || got != tc.want || f.MinStep == 0 {
			t.Errorf("cause named %v, past it %v: minimized to %s at step %d (%s), want confinement at %s", tc.cause != nil, tc.past, got, f.MinStep, f.Invariant, tc.want)
		}
		p.Annotate(f, "f.sbx")
		if want := "sandbox: mutant:raw-prefix; test; class of the violating op: unlabelled" + tc.said; f.Minimized.Comment[2] != want {
			t.Errorf("cause named %v, past it %v: header line %q, want %q", tc.cause != nil, tc.past, f.Minimized.Comment[2], want)
		}
	}
}

// TestPipelineLabelsTheClass: a Pipeline's Class labels the finding,
// given the minimized scenario, its failing step and the drawn class, and
// the header says that label; without one the drawn class stays.
func TestPipelineLabelsTheClass(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	sc := parse(t, "grant fs_read /work\nfile /workshop/secret LEAK\nfs_read /workshop/secret\n")
	sc.Steps[0].Class = attack.SymlinkEscape
	found := firstFinding(t, m.Factory, sc, 0)
	var asked string
	relabel := func(min *scenario.Scenario, step int, drawn attack.Class) attack.Class {
		asked = fmt.Sprintf("%s at step %d, drawn %s", min.Steps[step-1].Op.Args[0], step, drawn)
		return attack.PrefixSibling
	}
	for _, tc := range []struct {
		class func(*scenario.Scenario, int, attack.Class) attack.Class
		want  attack.Class
	}{{nil, attack.SymlinkEscape}, {relabel, attack.PrefixSibling}} {
		p := &Pipeline{Factory: m.Factory, SUT: "mutant:raw-prefix", Class: tc.class}
		f := p.Process(sc, found, "test")
		p.Annotate(f, "f.sbx")
		if f.Class != tc.want || !strings.Contains(f.Minimized.Comment[2], "class of the violating op: "+tc.want.String()) {
			t.Errorf("class labelled %v: %s, header %q; want %s", tc.class != nil, f.Class, f.Minimized.Comment[2], tc.want)
		}
	}
	if want := "/works at step 1, drawn symlink-escape"; asked != want {
		t.Errorf("Class was asked of %q, want %q", asked, want)
	}
}

// TestAnnotateInPlaceNamesTheCause: a campaign's finding minimized again
// in its file says the cause it shrank to, in place of the one it had,
// and says none when the pipeline names none.
func TestAnnotateInPlaceNamesTheCause(t *testing.T) {
	orig := parse(t, "# finding: confinement\n# sandbox: mutant:raw-prefix; seed 1, check 2; class of the violating op: lookalike; cause: old\ngrant fs_read /work\nfs_read /works\n")
	if !NamesCause(orig) || NamesCause(parse(t, "# sandbox: x; seed 1, check 2; class of the violating op: lookalike\nfs_read /works\n")) {
		t.Fatalf("NamesCause is wrong")
	}
	for _, cause := range []string{"new", ""} {
		f := &Finding{Invariant: oracle.Confinement, Minimized: orig.Clone(), Cause: cause}
		(&Pipeline{SUT: "mutant:raw-prefix"}).AnnotateInPlace(f, orig, 0, "")
		want := "sandbox: mutant:raw-prefix; seed 1, check 2; class of the violating op: lookalike"
		if cause != "" {
			want += "; cause: " + cause
		}
		if !slices.Contains(f.Minimized.Comment, want) {
			t.Errorf("cause %q: header %q, want the line %q", cause, f.Minimized.Comment, want)
		}
	}
}

// quietEmptyFetch is a sandbox that answers a fetch of the path "" ok
// without sending it, as a child whose HTTP cannot send it does, and runs
// every other op on the sandbox it wraps.
type quietEmptyFetch struct{ core.Sandbox }

func (s quietEmptyFetch) Run(op core.Op) core.Result {
	if op.Kind == core.OpFetch && len(op.Args) == 2 && op.Args[1] == "" {
		return core.Result{Kind: core.OK}
	}
	return s.Sandbox.Run(op)
}

// TestProcessAlongKeepsTheTwins: a verdict-matches-model finding whose op
// also reached the inside, minimized along its no-internal-egress twin,
// keeps the fetch that reached it; left free, it shrinks to the fetch of
// "" the sandbox never sends, a file that shows no egress.
func TestProcessAlongKeepsTheTwins(t *testing.T) {
	m, _ := mutants.Lookup("no-internal-check")
	factory := func(g core.Grant, w core.World) (core.Sandbox, error) {
		sb, err := m.Factory(g, w)
		return quietEmptyFetch{sb}, err
	}
	sc := parse(t, "grant net a.test\ndns a.test 10.0.0.1\nnet_fetch a.test /a/./b\n")
	fs, err := oracle.Check(factory, sc, nil, oracle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(fs, func(f oracle.Finding) bool { return f.Invariant == oracle.VerdictMatchesModel })
	if i < 0 || !slices.ContainsFunc(fs, func(f oracle.Finding) bool { return f.Invariant == oracle.NoInternalEgress }) {
		t.Fatalf("findings %v, want verdict-matches-model and no-internal-egress", fs)
	}
	for _, tc := range []struct {
		along []oracle.ID
		want  string
	}{{nil, ""}, {[]oracle.ID{oracle.NoInternalEgress}, "/"}} {
		f := (&Pipeline{Factory: factory, SUT: "test"}).ProcessAlong(sc, fs[i], tc.along, "test")
		last := f.Minimized.Steps[len(f.Minimized.Steps)-1].Op
		if last.Kind != core.OpFetch || last.Args[1] != tc.want {
			t.Errorf("along %v: minimized to %v, want a fetch of %q", tc.along, last, tc.want)
		}
	}
}

// TestWriteStricterDropsUnaskedRoutes: a stricter op's file keeps the
// routes a fetch of it can reach (a path an op fetches, a redirect and
// what it names, "/") and drops the rest: a megabyte's route that no op
// asks made such files, which are not minimized, a megabyte each.
func TestWriteStricterDropsUnaskedRoutes(t *testing.T) {
	big := strings.Repeat("0123456789", 1<<10)
	sc := parse(t, "grant net a.test\nroute a.test / root\nroute a.test /s ok\nroute a.test /big "+big+"\nroute b.test /next n\n"+
		"redirect a.test /go http://b.test/next\nroute c.test /other x\n\nnet_fetch a.test /s\n")
	dir := t.TempDir()
	path, err := (&Pipeline{SUT: "test"}).WriteStricter(dir, "ipv4-spelling", "seed 1, check 2", 3, sc)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, r := range parse(t, string(data)).World.Routes {
		routes = append(routes, r.Host+" "+r.Path)
	}
	if want := []string{"a.test /", "a.test /s", "b.test /next", "a.test /go"}; !slices.Equal(routes, want) {
		t.Errorf("routes kept %q, want %q", routes, want)
	}
}

// TestHangCandidatesStartInTheirTime: a hang finding's candidates get the
// short op timeout, but are built within the start timeout given (0: the
// oracle's default, at least 10 s), not the op timeout: a sandbox slow to
// start must not read as the hang, a start that timed out among them.
func TestHangCandidatesStartInTheirTime(t *testing.T) {
	for _, given := range []time.Duration{0, 45 * time.Second} {
		p := &Pipeline{Timeout: 5 * time.Second, StartTimeout: given}
		timeout, start, _ := p.bounds(oracle.Finding{Invariant: oracle.Total, Hang: true})
		if timeout != HangTimeout || start != given {
			t.Errorf("start timeout given %v: candidates get op %v and start %v, want %v and %v", given, timeout, start, HangTimeout, given)
		}
	}
}

// TestStricterReason: the reason a stricter example was written for is
// read back from its header; any other scenario has none.
func TestStricterReason(t *testing.T) {
	sc := parse(t, "grant net a.test\nroute a.test /s ok\n\nnet_fetch a.test /s\n")
	path, err := (&Pipeline{SUT: "test"}).WriteStricter(t.TempDir(), "write-through-link", "seed 1, check 2", 2, sc)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := StricterReason(parse(t, string(data))); got != "write-through-link" {
		t.Errorf("StricterReason of a stricter example = %q, want write-through-link", got)
	}
	if got := StricterReason(parse(t, "# stricter than you think\ngrant net a.test\n\nnet_fetch a.test /s\n")); got != "" {
		t.Errorf("StricterReason of another scenario = %q, want none", got)
	}
}

// TestSlowFreshStartIsNoState: a finding whose sandbox, started fresh, is
// slow on its first op (a server's first call loads its libraries) past
// the op timeout is judged alone once more with a longer one before it is
// called stateful: it fails there, as on the session that found it.
func TestSlowFreshStartIsNoState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 400 * time.Millisecond
		m, _ := mutants.Lookup("raw-prefix")
		start := func() (core.Factory, func() error, error) {
			once := new(sync.Once)
			f := func(g core.Grant, w core.World) (core.Sandbox, error) {
				sb, err := m.Factory(g, w)
				return slowFirst{sb, once}, err
			}
			return f, func() error { return nil }, nil
		}
		sc := longPrefixSibling(t)
		session, _, _ := start()
		if _, err := oracle.Check(session, sc, nil, oracle.Options{Timeout: 10 * timeout}); err != nil { // its slow first op
			t.Fatal(err)
		}
		found := firstFinding(t, session, sc, 0)
		p := &Pipeline{Factory: session, SUT: "slow", Start: start, Timeout: timeout}
		f := p.Process(sc, found, "test")
		time.Sleep(2 * time.Second) // the ops given up on return
		synctest.Wait()
		if f.Flaky || f.Stateful {
			t.Errorf("flaky %v, stateful %v; want neither: alone, it fails once its first op is given time", f.Flaky, f.Stateful)
		}
	})
}

// slowFirst is a sandbox whose session's first op takes a second.
type slowFirst struct {
	core.Sandbox
	once *sync.Once
}

func (s slowFirst) Run(op core.Op) core.Result {
	s.once.Do(func() { time.Sleep(time.Second) })
	return s.Sandbox.Run(op)
}

// TestAnnotateInPlaceRelabels: a finding minimized again in its file has
// the class its header names labelled anew by the Pipeline's Class, as
// the minimized scenario leaves it.
func TestAnnotateInPlaceRelabels(t *testing.T) {
	orig := parse(t, "# finding: confinement\n# sandbox: mutant:raw-prefix; seed 1, check 2; class of the violating op: symlink-escape; cause: old\ngrant fs_read /work\nfs_read /works\n")
	f := &Finding{Invariant: oracle.Confinement, Minimized: orig.Clone(), MinStep: 1}
	var asked attack.Class
	p := &Pipeline{SUT: "mutant:raw-prefix", Class: func(_ *scenario.Scenario, step int, drawn attack.Class) attack.Class {
		asked = drawn
		return attack.PrefixSibling
	}}
	p.AnnotateInPlace(f, orig, 0, "")
	if i := slices.IndexFunc(f.Minimized.Comment, func(l string) bool { return strings.HasPrefix(l, "sandbox: ") }); i < 0 ||
		f.Minimized.Comment[i] != "sandbox: mutant:raw-prefix; seed 1, check 2; class of the violating op: prefix-sibling" || asked != attack.SymlinkEscape || f.Class != attack.PrefixSibling {
		t.Errorf("header %q, Class asked of %s, finding's class %s; want prefix-sibling, asked of symlink-escape", f.Minimized.Comment, asked, f.Class)
	}
}

// clashingOnce are two confinement scenarios whose names clashed when a
// finding's name held 32 bits of hash.
func clashingOnce(t *testing.T) (a, b *scenario.Scenario) {
	t.Helper()
	mk := func(n uint64) *scenario.Scenario {
		sc, err := scenario.Parse("x", []byte(fmt.Sprintf("grant fs_read /work/\nfile /work/a x\nfs_read /outside/%x\n", n*0x9E3779B97F4A7C15)))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	return mk(47441), mk(104537)
}

// TestFileNamesDoNotClash: two different findings of one invariant whose
// names a shorter hash made one are written to two files, each named by
// 64 bits of hash; their keys differ too, and a finding's key is its own.
func TestFileNamesDoNotClash(t *testing.T) {
	sa, sb := clashingOnce(t)
	a := &Finding{Invariant: oracle.Confinement, Minimized: sa, Original: sa, Origin: "seed 1, check 1"}
	b := &Finding{Invariant: oracle.Confinement, Minimized: sb, Original: sb, Origin: "seed 1, check 2"}
	if !regexp.MustCompile(`^confinement-[0-9a-f]{16}\.sbx$`).MatchString(a.FileName()) {
		t.Errorf("name %q; want the invariant and 16 hex digits", a.FileName())
	}
	dir := t.TempDir()
	p := &Pipeline{SUT: "reference"}
	pa, err := p.Write(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := p.Write(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if pa == pb || len(ents) != 2 || a.Key() == b.Key() {
		t.Errorf("paths %s and %s, %d files, keys equal %v; want two files of two findings", pa, pb, len(ents), a.Key() == b.Key())
	}
	c := *a
	c.Minimized = sa.Clone()
	c.Minimized.Comment = []string{"a comment is not the finding"}
	if c.Key() != a.Key() || c.FileName() != a.FileName() {
		t.Errorf("a comment changed the finding's key or name")
	}
}

// TestQuoteArgShowsAsItself: a reproduce line is written into a finding's
// header and onto the terminal through package inert, so a quoted word must
// hold nothing inert would rewrite, and still be the word to a shell.
func TestQuoteArgShowsAsItself(t *testing.T) {
	words := []string{"plain", "a b", "it's", `back\slash`, "out\x1b[2Kdir", "dir\u202eexe.sbx", "bad\xffbyte", "new\nline", "quote'and\x07bell", "tab\tstop", "del\x7f", "e\u0301", ""}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Logf("bash not found, the shell's reading is not checked: %v", err)
	}
	for _, w := range words {
		q := QuoteArg(w)
		if got := inert.String(q); got != q || strings.ContainsRune(q, '\t') {
			t.Errorf("QuoteArg(%q) = %q, which shows as %q", w, q, got)
		}
		if bash == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		out, err := exec.CommandContext(ctx, bash, "-c", "printf %s "+q).Output()
		cancel()
		if err != nil {
			t.Fatalf("bash reading %q: %v", q, err)
		}
		if string(out) != w {
			t.Errorf("bash reads QuoteArg(%q) = %q as %q", w, q, out)
		}
	}
}
