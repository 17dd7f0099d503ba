package cli

import (
	"fmt"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// loadFor reads and parses one scenario file for the sandbox under test:
// a scenario the sandbox cannot be set up for at all (Target.Refuse) is
// bad input, refused with the file's name.
func loadFor(t sut.Target, name string) (*scenario.Scenario, error) {
	sc, err := load(name)
	if err != nil {
		return nil, err
	}
	if t.Refuse != nil {
		if err := t.Refuse(sc); err != nil {
			return nil, fmt.Errorf("%s: %s cannot run it: %v", name, t.Name, err)
		}
	}
	return sc, nil
}

// replayNarrowed replays sc as a campaign would check it on target: narrowed by
// its adapter, the ops it cannot express skipped and counted, each kept op
// held to its expectation only where narrowing left SPEC §5's result for
// it as the file has it. Its steps and findings are numbered as in the
// file.
func replayNarrowed(target sut.Target, name string, sc *scenario.Scenario, f core.Factory, opt oracle.Options) (*reports.Replay, error) {
	if _, err := judge.NewCase(sc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	n := target.Narrow(sc)
	if n.Scenario == nil {
		out := &reports.Replay{File: name, SUT: target.Name, Skipped: n.Skipped, NotRun: true, Asks: target.Asks}
		if target.Why != nil {
			out.WhyNotRun = target.Why(sc)
		}
		return out, nil
	}
	run, notHeld := heldExpectations(sc, n)
	res, err := replay.RunWith(name, run, f, nil, opt)
	if err != nil {
		return nil, err
	}
	renumber(res, n.Of)
	out := res.Report()
	out.SUT, out.Skipped, out.NotHeld, out.Asks = target.Name, n.Skipped, notHeld, target.Asks
	return out, nil
}

// heldExpectations returns the scenario to replay for n, a narrowing of
// orig, and the steps of orig whose expectations it drops: those for
// which the narrowed grant, world or ops give another result by SPEC §5
// (the model) than orig does, so that the file's expectation no longer
// says what a correct sandbox answers.
func heldExpectations(orig *scenario.Scenario, n sut.Narrowed) (*scenario.Scenario, []int) {
	if n.Scenario == orig {
		return orig, nil
	}
	run := n.Scenario.Clone()
	co, errO := judge.NewCase(orig)
	ca, errA := judge.NewCase(run)
	var want, got []core.Result
	if errO == nil && errA == nil && n.Of != nil {
		want, got = judge.Expected(co), judge.Expected(ca)
	}
	var dropped []int
	for i := range run.Steps {
		if run.Steps[i].Expect == nil {
			continue
		}
		if got != nil && want[n.Of[i]-1] == got[i] {
			continue
		}
		run.Steps[i].Expect = nil
		if n.Of != nil {
			dropped = append(dropped, n.Of[i])
		} else {
			dropped = append(dropped, i+1)
		}
	}
	return run, dropped
}

// renumber numbers the steps and findings of out, a replay of a narrowed
// scenario, as the original's (of: see sut.Narrowed).
func renumber(out *replay.Outcome, of []int) {
	if of == nil {
		return
	}
	for i := range out.Steps {
		out.Steps[i].Step = of[out.Steps[i].Step-1]
	}
	for i := range out.Findings {
		if s := out.Findings[i].Step; s > 0 && s <= len(of) {
			out.Findings[i].Step = of[s-1]
		}
	}
}
