package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// countsFetches is the reference as a counting target whose every fetch
// in a check's run is counted stricter, under "other": a real sandbox
// refusing them, its door answering as the model does.
func countsFetches() sut.Target {
	tg := sut.Static("counts-fetches", core.ReferenceFactory)
	tg.StartCounted = func() (core.Factory, func() error, func() door.Tally, error) {
		c := new(door.Counter)
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			return &counted{Sandbox: core.NewReference(g, w), c: c, run: c.Opened()}, nil
		}
		return f, func() error { return nil }, func() door.Tally { return c.Read(nil) }, nil
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
		s.c.Stricter("other", judge.FormatOp(op))
	}
	return s.Sandbox.Run(op)
}

func (s *counted) Close() error { s.c.Closed(); return nil }

// TestStricterScenarioWritten: a campaign writes, for each stricter
// reason, the scenario of the lowest check that had an op counted under
// it, whatever the number of workers, headed as no finding with the line
// that replays it; the summary names it.
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
		if !strings.Contains(string(text), "\nnet_fetch ") {
			t.Errorf("%d workers: the scenario has no fetch:\n%s", workers, text)
		}
		body := string(text[strings.Index(string(text), "\n\n"):])
		if first == "" {
			first = body
		} else if body != first {
			t.Errorf("the scenario written depends on the workers:\n%s\nagainst\n%s", body, first)
		}
		sum := Summarize(res, "counts-fetches")
		if lines := sum.StricterExampleLines(); len(lines) != 1 || !strings.HasSuffix(lines[0], "a scenario with one, to replay: "+path) {
			t.Errorf("summary lines %q: want one naming %s", lines, path)
		}
	}
}
