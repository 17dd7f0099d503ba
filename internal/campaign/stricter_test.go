package campaign

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// countsFetches is the reference as a counting target whose every fetch
// in a check's run is counted stricter, under "other", refused in words
// that name it: a real sandbox refusing them, its door answering as the
// model does.
func countsFetches() sut.Target { return countsFetchesOf(core.ReferenceFactory) }

// countsFetchesOf is countsFetches of the sandboxes of f.
func countsFetchesOf(f core.Factory) sut.Target {
	tg := sut.Static("counts-fetches", f)
	tg.StartCounted = func() (core.Factory, func() error, func() door.Tally, error) {
		c := new(door.Counter)
		counting := func(g core.Grant, w core.World) (core.Sandbox, error) {
			sb, err := f(g, w)
			return &counted{Sandbox: sb, c: c, run: c.Opened()}, err
		}
		return counting, func() error { return nil }, func() door.Tally { return c.Read(nil) }, nil
	}
	return tg
}

type counted struct {
	core.Sandbox
	c   *door.Counter
	run bool // the check's run, not its replay
}

func (s *counted) Run(op core.Op) core.Result {
	if s.run && op.Kind == core.OpFetch {
		words := "refused " + judge.FormatOp(op)
		s.c.Said(words)
		s.c.Stricter("other", judge.FormatOp(op), words)
	}
	return s.Sandbox.Run(op)
}

func (s *counted) Close() error { s.c.Closed(); return nil }

// TestStricterScenarioWritten: a campaign writes, for each stricter
// reason, the scenario of the lowest check that had an op counted under
// it, cut after that op, whatever the number of workers, headed as no
// finding with the line that replays it; the summary names it and shows
// its op, with the words that op (not another) was refused in.
func TestStricterScenarioWritten(t *testing.T) {
	var first string
	for _, workers := range []int{1, 2} {
		out := t.TempDir()
		res, err := Run(context.Background(), Config{Seed: 1, Checks: 60, Workers: workers, Target: countsFetches(), Out: out})
		if err != nil {
			t.Fatal(err)
		}
		if res.Tally.Stricter["other"] == 0 {
			t.Fatal("no fetch counted: the scenarios drew none")
		}
		path := res.StricterFiles["other"]
		if path != filepath.Join(out, "stricter-other.sbx") {
			t.Fatalf("stricter files %v, want stricter-other.sbx in %s", res.StricterFiles, out)
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Parse(path, text)
		if err != nil {
			t.Fatalf("the file does not parse: %v", err)
		}
		header := strings.Join(sc.Comment, "\n")
		for _, want := range []string{"stricter than the model, not a finding", "counted under other (", "sandbox: counts-fetches; seed 1, check ", "reproduce: sbxfuzz replay --sut counts-fetches " + path} {
			if !strings.Contains(header, want) {
				t.Errorf("%d workers: the header lacks %q:\n%s", workers, want, header)
			}
		}
		last := sc.Steps[len(sc.Steps)-1].Op
		if last.Kind != core.OpFetch || slices.ContainsFunc(sc.Steps[:len(sc.Steps)-1], func(st scenario.Step) bool { return st.Op.Kind == core.OpFetch }) {
			t.Errorf("%d workers: the scenario does not end at its first fetch:\n%s", workers, text)
		}
		body := string(text[strings.Index(string(text), "\n\n"):])
		if first == "" {
			first = body
		} else if body != first {
			t.Errorf("the scenario written depends on the workers:\n%s\nagainst\n%s", body, first)
		}
		sum := Summarize(res, "counts-fetches")
		shown := "one of them: " + judge.FormatOp(last) + `, refused in the words "refused ` + judge.FormatOp(last) + `"; `
		if lines := sum.StricterExampleLines(); len(lines) != 1 || !strings.Contains(lines[0], shown) || !strings.HasSuffix(lines[0], "to replay: "+path) {
			t.Errorf("summary lines %q: want one showing %s and naming %s", lines, judge.FormatOp(last), path)
		}
	}
}

// wrongFirst is the reference but for the first op of a scenario, which
// it answers otherwise than the model unless it is a fetch: a
// verdict-matches-model finding at step 1 of every other scenario.
func wrongFirst(g core.Grant, w core.World) (core.Sandbox, error) {
	return &firstWrong{Sandbox: core.NewReference(g, w)}, nil
}

type firstWrong struct {
	core.Sandbox
	ran bool
}

func (s *firstWrong) Run(op core.Op) core.Result {
	r := s.Sandbox.Run(op)
	if !s.ran && op.Kind != core.OpFetch {
		r = core.Result{Kind: core.OK, Data: r.Data + "x"}
	}
	s.ran = true
	return r
}

// TestStricterScenarioHasNoFinding: on a sandbox that also fails checks,
// the scenario written for a stricter reason is one whose refused op came
// before any finding of its check: cut after it, it fails nothing.
func TestStricterScenarioHasNoFinding(t *testing.T) {
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 300, Workers: 1, Target: countsFetchesOf(wrongFirst), Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 || res.StricterFiles["other"] == "" {
		t.Fatalf("%d findings, stricter files %v: want both", len(res.Findings), res.StricterFiles)
	}
	text, err := os.ReadFile(res.StricterFiles["other"])
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("s.sbx", text)
	if err != nil {
		t.Fatal(err)
	}
	if fs, err := oracle.Check(wrongFirst, sc, nil, oracle.Options{}); err != nil || len(fs) != 0 {
		t.Errorf("the stricter scenario fails: %v %v\n%s", fs, err, text)
	}
}

// TestDistinctScenarios: findings whose minimized scenarios differ only
// in their headers (the invariant each names) are one scenario.
func TestDistinctScenarios(t *testing.T) {
	parse := func(src string) *scenario.Scenario {
		sc, err := scenario.Parse("m.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	one := func(src string) Finding { return Finding{Finding: &finding.Finding{Minimized: parse(src)}} }
	a := one("# finding: confinement\ngrant fs_read /work/\n\nfs_read /workshop/s\n")
	b := one("# finding: verdict-matches-model\ngrant fs_read /work/\n\nfs_read /workshop/s\n")
	c := one("# finding: confinement\ngrant fs_read /work/\n\nfs_read /workx\n")
	if got := distinctScenarios([]Finding{a, b, c}); got != 2 {
		t.Errorf("%d distinct scenarios of 3 findings, two of one scenario; want 2", got)
	}
}
