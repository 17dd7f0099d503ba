package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func runReplay(e *env, args []string) int {
	fs := newFlags(e, "replay", "[--sut NAME [--profile NAME|FILE]] [--timeout D] [--start-timeout D] [--tree-dir DIR] [--format text|json] FILE...", `
Replay each scenario on the sandbox under test with the oracle watching every
op, hold each op to its expectation, and print the step table — step, op,
result, hard, ops/wall/output used, what the step added to the journal —
followed by the findings in plain words: each invariant at its first
violation, a later step that breaks it marked in the table and listed after
them. Every op runs, after a halt too, so the latch is checked. A FILE of the
form DIR/... stands for every .sbx below DIR. A real sandbox (osroot, mcp:,
proxy:) is asked what run would ask it: the ops its adapter cannot express are
skipped and counted, not judged, and an expectation is held only where SPEC §5
gives the same result on what is asked. An op it refuses that the model allows
(stricter, SPEC §14) is not judged either: its step shows the model's answer,
marked with the reason, and a line after the table counts such ops by reason;
on an exec: child that declared it stricter, so are the steps after it
(marked). A stricter example a run wrote (stricter-REASON.sbx) whose replay
refuses none of its ops says so. A file during whose replay a sandbox was
first seen keeping state from one run to the next (a fetch server's cache) is
replayed again, each run on a process of its own, and a note says so. Exit 1
if any expectation is unmet or any invariant violated; 3 on SIGINT, SIGTERM or
SIGHUP.`)
	sutName := fs.String("sut", sut.Reference, sutHelp)
	treeDirFlag(e, fs)
	format := formatFlag(fs, "text", "json")
	timeout := timeoutFlag(e, fs)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if !checkFormat(e, *format, "text", "json") || !checkTimeout(e, *timeout) {
		return ExitUsage
	}
	target, err := e.target(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	files, err := fsutil.ExpandPatterns(fs.Args(), ".sbx")
	if err != nil {
		return errorf(e, "%v", err)
	}
	if len(files) == 0 {
		return errorf(e, "replay: no files given (try 'sbxfuzz replay -h')")
	}
	// Parse everything first: bad input is exit 2 before any output, and
	// before the sandbox is started.
	scs := make([]*scenario.Scenario, len(files))
	for i, name := range files {
		if scs[i], err = loadFor(target, name); err != nil {
			return printError(e, err)
		}
	}
	if len(setFlags(fs.FlagSet, []string{"sut"})) == 0 {
		for i, name := range files {
			// The header holds the name as a comment writes it (inert).
			if on := foundOn(scs[i]); on != "" && on != target.Name && on != inert(target.Name) {
				fmt.Fprintf(e.stderr, "sbxfuzz replay: note: %s was found on %s; this replays it on %s (its header's reproduce line replays it on %s)\n", inert(name), inert(on), inert(target.Name), inert(on))
			}
		}
	}
	factory, end, tally, err := startCountedSession(e, target)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	defer end()
	status := ExitOK
	for i, name := range files {
		isolated := tally().Isolated
		out, err := replayOne(target, name, scs[i], factory, tally, e.oracleOptions())
		if err == nil && !isolated && tally().Isolated {
			// The sandbox kept state from the scenario's run to its
			// replay (a fetch server answered from its cache what the run
			// fetched), so the two differ for the harness's sharing of
			// one process; from now on each gets one of its own.
			fmt.Fprintf(e.stderr, "sbxfuzz replay: note: %s: the sandbox answered from what an earlier run left in it (a fetch server's cache, a proxy's DNS answers); replayed again on a process of its own for each run, as every scenario after it is\n", inert(name))
			out, err = replayOne(target, name, scs[i], factory, tally, e.oracleOptions())
		}
		if err != nil {
			return printError(e, err)
		}
		if out.Failed() {
			status = ExitFinding
		}
		if err := reports.WriteReplay(e.stdout, reports.Format(*format), out); err != nil {
			return errorf(e, "%v", err)
		}
	}
	return status
}

// replayOne replays sc, read from name, on the sandboxes f makes, and
// marks its steps with what the door counted meanwhile.
func replayOne(target sut.Target, name string, sc *scenario.Scenario, f core.Factory, tally func() door.Tally, opt oracle.Options) (*reports.Replay, error) {
	before := tally().Stricter
	watch := door.NewWatch(tally)
	out, err := replayNarrowed(target, name, sc, watch.Factory(f), opt)
	if err != nil {
		return nil, err
	}
	out.Stricter = newCounts(before, tally().Stricter)
	if on := foundOn(sc); on == "" || on == target.Name {
		out.WrittenStricter = finding.StricterReason(sc) // on another sandbox, its refusal need not recur
	}
	markSteps(watch, out.Steps)
	return out, nil
}

// markSteps sets the Stricter reason, the ModelJournal, Modelled, Cleaned, Unknown, Said, Landed, Parted, Bare, Kept and LineMoved of the steps
// w noted, steps being the replay's in the order they ran.
func markSteps(w *door.Watch, steps []reports.ReplayStep) {
	stricter, filled := w.Marks()
	modelled, cleaned, landed, unknown, said := w.Modelled(), w.Cleaned(), w.Landed(), w.Unknown(), w.Said()
	parted, bare, kept, moved := w.Parted(), w.Bare(), w.Kept(), w.LineMoved()
	for i := range steps {
		steps[i].Stricter, steps[i].ModelJournal, steps[i].Modelled, steps[i].Cleaned = stricter[i], filled[i], modelled[i], cleaned[i]
		steps[i].Landed, steps[i].Parted, steps[i].Said, steps[i].Bare, steps[i].Kept = landed[i], parted[i], said[i], bare[i], kept[i]
		steps[i].LineMoved = moved[i]
		if unknown[i] {
			steps[i].Unknown = said[i]
		}
	}
}

// newCounts is what after counts beyond before, by key; nil when nothing.
func newCounts(before, after map[string]int64) map[string]int64 {
	var out map[string]int64
	for k, n := range after {
		if d := n - before[k]; d > 0 {
			if out == nil {
				out = map[string]int64{}
			}
			out[k] = d
		}
	}
	return out
}

// load reads and parses one scenario file. A go test -fuzz input given
// instead (a crasher of a fuzz target in testdata/fuzz) is refused with
// the command that reads one.
func load(name string) (*scenario.Scenario, error) {
	src, err := fsutil.ReadInput(name)
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Parse(name, src)
	if err != nil && bytes.HasPrefix(src, []byte("go test fuzz v1\n")) {
		return nil, fmt.Errorf("%s: a go test -fuzz input, not a scenario: import decodes and minimizes it into one (import --sut NAME %s)", name, name)
	}
	return sc, err
}

// foundOn is the sandbox a finding file's header says it was found on
// (its line "sandbox: NAME; ORIGIN; class of the violating op: C", ORIGIN
// being "seed ..." or "imported from ..."), "" for a file with no such
// header. NAME may hold "; " itself (a shell command line).
func foundOn(sc *scenario.Scenario) string {
	for _, l := range sc.Comment {
		rest, ok := strings.CutPrefix(l, "sandbox: ")
		if !ok {
			continue
		}
		if i := strings.LastIndex(rest, finding.ClassMark); i >= 0 {
			rest = rest[:i]
		}
		for _, origin := range []string{"; seed ", "; imported from "} {
			if i := strings.LastIndex(rest, origin); i >= 0 {
				return rest[:i]
			}
		}
		return ""
	}
	return ""
}
