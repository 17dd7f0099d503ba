package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

func runCampaign(e *env, args []string) int {
	fs := newFlags(e, "run", "[--seed N] [--checks N | --duration D] [--workers W] [--sut NAME [--profile NAME|FILE]] [--timeout D] [--start-timeout D] [--tree-dir DIR] [--out DIR] [--stop-at-first] [--progress D] [--format text|json]", `
Run a campaign: generate hostile scenarios from the seed, judge every op of
every one with the oracle on the sandbox under test, minimize each finding and
write it as an annotated .sbx to --out (by default under the user's cache
directory, never the working directory: see --out), naming the directory in
the summary. Check i draws from (seed, i), so the findings and counts depend
only on the seed and the number of checks, not on the number of workers.
Progress goes to stderr once a second when stderr is a terminal
(elsewhere, a line every --progress D), then a summary line; each finding's
file and what it violates go to stdout (with --format json, the summary).
Each finding is written as soon as it is
minimized, so a campaign killed later keeps it; memory stays flat however many
checks fail. An op that does not return within --timeout is a hang, a total
finding. SIGINT (Ctrl-C), SIGTERM or SIGHUP stops cleanly within 2 s:
what is found is minimized for a second, written, and the summary printed
(a finding there was no time to minimize is written as it was found, its
header saying so); a second signal stops at once, writing what is found
as it is. A timed campaign (--duration D) ends the same way within D + 9 s,
minimization included. With --format json the summary also counts the
SPEC dimension points the scenarios hit (on a sandbox other than the
reference, a second, reference run of each scenario: slower), for 'sbxfuzz
report --from'. A finding that does not fail again when judged again is
written marked flaky, with the words of the run that found it, and does not
make the exit status 1 on its own, unless it is of confinement or
no-internal-egress: an escape the sandbox made once (a cache kept from an
earlier scenario, a race) is one all the same. On a real sandbox (osroot,
mcp:, proxy:) an op that timed out is judged once more on a fresh sandbox
before it counts; the summary says how many a fresh one answered in time (not
findings).
--stop-at-first ends the campaign once its first finding (the lowest check
that fails, its first invariant) is minimized and written: one file, and
the same one whatever the number of workers. Exit 0
nothing found (or only flaky findings that are no escape), 1 findings, 2 bad usage or a sandbox
that cannot start, 3 interrupted.`)
	seed := fs.Uint64("seed", 1, "campaign seed")
	checks, duration, workers := sizeFlags(fs)
	progressFlag(e, fs)
	sutName := fs.String("sut", sut.Reference, sutHelp)
	treeDirFlag(e, fs)
	out := outFlag(fs)
	timeout := timeoutFlag(e, fs)
	format := formatFlag(fs, "text", "json")
	stopAtFirst := fs.Bool("stop-at-first", false, "stop after the first finding is minimized and written (exit 1 with that one finding)")
	perInvariant := fs.Int("per-invariant", campaign.MaxPerInvariant, "how many findings of each invariant are minimized and written: the earliest, one per cause of a fetch (its host's spelling and range) or of a file op (a traversal, a prefix sibling, outside every root, at a link, below a link), two per attack class of any other op")
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if *perInvariant < 1 || *perInvariant > maxPerInvariant {
		return errorf(e, "run: --per-invariant %d: want 1 to %d", *perInvariant, maxPerInvariant)
	}
	if !checkFormat(e, *format, "text", "json") {
		return ExitUsage
	}
	if fs.NArg() > 0 {
		return errorf(e, "run: unexpected argument %q", fs.Arg(0))
	}
	if err := checkCampaign(fs, checks, *duration, *workers); err != nil {
		return errorf(e, "run: %v", err)
	}
	if !checkTimeout(e, *timeout) {
		return ExitUsage
	}
	target, err := e.target(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	if *out, err = e.outDir(fs, *out, *sutName, target.Flags); err != nil {
		return errorf(e, "%v", err)
	}
	made := missingDirs(*out)
	if err := fsutil.CheckOutDir(*out); err != nil {
		return errorf(e, "--out: %v", err)
	}
	fsutil.CleanTemps(*out) // what a killed run left under hidden names
	ctx, abort, stop := interruptible(e)
	defer stop()
	res, err := driveCampaign(ctx, e, campaign.Config{Seed: *seed, Checks: *checks, Duration: *duration, Workers: *workers,
		Target: target, Timeout: *timeout, StartTimeout: e.startTimeout, Out: *out, Dimensions: *format == "json", Abort: abort,
		StopAtFirst: *stopAtFirst, PerInvariant: *perInvariant, Program: e.program})
	if res == nil {
		for _, d := range made {
			os.Remove(d) // made for this run, which never started: nothing is left of it (a directory with files stays)
		}
		return errorf(e, "%v", err)
	}
	if err != nil {
		errorf(e, "%v", err) // a finding could not be written: say so, and still summarize
	}
	sum := campaign.Summarize(res, *sutName)
	sum.SUTFlags, sum.Unasked = target.Flags, target.Unasked
	sum.MarkNotApplicable(target.NotApplicable)
	sum.MarkKindsNotApplicable(target.KindsNotApplicable)
	fmt.Fprintf(e.stderr, "sbxfuzz run: seed %d, %d checks, %d ops in %s (%s ops/s, %d workers%s), sut %s: %d findings%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n",
		sum.Seed, sum.Checks, sum.Ops, res.Checked.Round(time.Millisecond), reports.Rate(sum.OpsPerSecond), sum.Workers, minimizingTime(res), sum.SUT,
		len(sum.Findings), distinctScenarios(sum), flakyCount(sum), unconfirmedCount(sum), unminimizedCount(sum.Findings), writtenTo(len(sum.Findings), *out),
		violationsSeen(sum, *stopAtFirst, *perInvariant), unconfirmedHangs(sum.UnconfirmedHangs), sum.Expressible(), sum.StricterClause(), sum.LandedClause(), sum.CachedClause(), sum.LineMovedClause(), sum.SkippedLinesClause(), interrupted(res.Interrupted))
	for _, l := range sum.StricterExampleLines() {
		fmt.Fprintf(e.stderr, "sbxfuzz run: %s\n", l)
	}
	for _, w := range sum.SandboxWarnings() {
		fmt.Fprintf(e.stderr, "sbxfuzz run: WARNING: %s\n", w)
	}
	if *format == "json" {
		sum.Warnings = sum.SandboxWarnings()
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return errorf(e, "%v", err)
		}
	} else {
		for _, f := range sum.Findings {
			fmt.Fprintf(e.stdout, "%s: %s (check %d, class %s%s, %s%s)\n  %s\n",
				f.File, f.Invariant, f.Check, f.Class, causeWords(f), shrunk(f), twinOf(f, sum.Findings), inert(f.Detail))
		}
		if !*stopAtFirst {
			printUnwritten(e.stdout, sum.Causes, *perInvariant)
		}
	}
	switch {
	case res.Interrupted:
		return ExitInterrupted
	case err != nil:
		return ExitUsage
	case sum.Failed():
		return ExitFinding
	case sum.Checks == 0 && sum.GivenUpChecks > 0:
		return ExitUsage // it judged nothing: its timeouts do not fit its duration (the warning says so)
	}
	return ExitOK
}

// twinOf is the clause of a verdict-matches-model finding's line naming
// the finding of another invariant at the same op, if there is one: the
// two are one defect seen twice (a sandbox that lets a read out answers
// ok where the model denies), which a count of findings does not say.
func twinOf(f reports.Finding, all []reports.Finding) string {
	if f.Invariant != oracle.VerdictMatchesModel.String() || f.Step <= 0 {
		return ""
	}
	for _, g := range all {
		if g.Check == f.Check && g.Step == f.Step && g.Invariant != f.Invariant && g.File != "" {
			return fmt.Sprintf("; the same op as %s's %s", g.Invariant, g.File)
		}
	}
	return ""
}

// causeWords is the cause of a finding's line, after its class: in
// brackets, for a cause is words with commas of its own.
func causeWords(f reports.Finding) string {
	if f.Cause == "" {
		return ""
	}
	return " [" + inert(f.Cause) + "]" // a cause may name a host the sandbox chose
}

// shrunk says how much a finding was minimized.
func shrunk(f reports.Finding) string {
	if f.Flaky {
		return fmt.Sprintf("%s, not minimized: flaky, it did not fail again", opsCount(f.OriginalOps))
	}
	if f.Unconfirmed {
		return fmt.Sprintf("%s, not minimized nor confirmed on a fresh sandbox: the campaign stopped first", opsCount(f.OriginalOps))
	}
	if f.Unminimized {
		return fmt.Sprintf("%s, not minimized: the campaign stopped first", opsCount(f.OriginalOps))
	}
	if f.Stateful {
		return fmt.Sprintf("%s minimized to %d; flaky: it fails only after other scenarios on the same sandbox, not alone", opsCount(f.OriginalOps), f.MinimizedOps)
	}
	if f.Unreproduced > 0 {
		return fmt.Sprintf("%s, not minimized: its %d-op candidate did not fail again", opsCount(f.OriginalOps), f.Unreproduced)
	}
	return fmt.Sprintf("%s minimized to %d", opsCount(f.OriginalOps), f.MinimizedOps)
}

// opsCount is n ops in words: "1 op", "40 ops".
func opsCount(n int) string {
	if n == 1 {
		return "1 op"
	}
	return fmt.Sprintf("%d ops", n)
}

// unminimizedCount is the summary line's clause counting the findings
// written as they were found.
func unminimizedCount(fs []reports.Finding) string {
	n := 0
	for _, f := range fs {
		if f.Unminimized {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d not minimized: the campaign stopped first; each file's header says how to minimize it, and on a slow sandbox --checks N leaves minimizing unhurried where --duration stops it)", n)
}

// flakyCount is the summary line's clause counting the flaky findings,
// which do not make the exit status 1: "(all 2 flaky: ...)" when no other
// finding does.
func flakyCount(sum reports.Summary) string {
	switch n := sum.FlakyFindings; {
	case n == 0:
		return ""
	case sum.FlakyEscapes > 0:
		escapes := fmt.Sprintf("%d are", sum.FlakyEscapes)
		if sum.FlakyEscapes == 1 {
			escapes = "1 is"
		}
		return fmt.Sprintf(" (%d flaky: they did not fail again when judged again; %s of confinement or no-internal-egress, an escape the sandbox made once, which makes the exit status 1 all the same)", n, escapes)
	case !sum.Failed() && sum.UnconfirmedFindings == 0:
		return fmt.Sprintf(" (%s flaky: none failed again when judged again, so the exit status is 0)", allOf(n))
	default:
		return fmt.Sprintf(" (%d flaky: they did not fail again when judged again)", n)
	}
}

// unconfirmedCount is the summary line's clause counting the op timeouts
// written when the campaign stopped before a fresh sandbox judged them,
// which do not make the exit status 1.
func unconfirmedCount(sum reports.Summary) string {
	if sum.UnconfirmedFindings == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d op timeouts not judged again: the campaign stopped first, so they do not count)", sum.UnconfirmedFindings)
}

// violationsSeen is the summary line's clause counting the violations the
// oracle reported, when more than the findings written: a sandbox that
// fails many checks shows only the earliest few of each invariant, and its
// user should know the rest exist. A campaign that stops at its first
// finding asked for one.
func violationsSeen(sum reports.Summary, stopAtFirst bool, per int) string {
	if stopAtFirst || sum.RawFindings <= int64(len(sum.Findings)+sum.UnconfirmedHangs) { // a hang ruled out is counted apart
		return ""
	}
	causes := ""
	switch n := sum.ViolationCauses; {
	case n > campaign.MaxCauses:
		causes = fmt.Sprintf(" of more than %d causes", campaign.MaxCauses)
	case n == 1:
		causes = " of 1 cause"
	case n > 1:
		causes = fmt.Sprintf(" of %d causes", n)
	}
	return fmt.Sprintf("; %d violations%s seen in all; written: the first of each cause while its invariant had room, %d findings of each (--per-invariant N for more)",
		sum.RawFindings, causes, per)
}

// printUnwritten lists the causes of violations of which no finding was
// written, after the findings: each is a way the sandbox fails that no
// file shows, since the invariants' slots (per) went to earlier causes.
func printUnwritten(w io.Writer, causes []reports.Cause, per int) {
	var left []reports.Cause
	for _, c := range causes {
		if !c.Written {
			left = append(left, c)
		}
	}
	if len(left) == 0 {
		return
	}
	more := fmt.Sprintf("; --per-invariant %d writes more", min(per*4, maxPerInvariant))
	if per >= maxPerInvariant {
		more = ""
	}
	fmt.Fprintf(w, "%d more causes, not written (each invariant's %d findings went to earlier ones%s):\n", len(left), per, more)
	for _, c := range left {
		cause := c.Cause
		if c.Class {
			cause = "ops of attack class " + cause
		}
		fmt.Fprintf(w, "  [%s] %s: violations %d, the first at check %d\n", inert(cause), strings.Join(c.Invariants, ", "), c.Violations, c.FirstCheck)
	}
}

// maxPerInvariant bounds --per-invariant: each finding kept is minimized,
// which against a slow sandbox takes a while.
const maxPerInvariant = 64

// minimizingTime is the summary line's clause for the time spent after the
// checks, minimizing their findings, when it is long enough to show: the ops
// per second are the checks' alone.
func minimizingTime(res *campaign.Result) string {
	if after := res.Elapsed - res.Checked; after >= time.Second {
		return fmt.Sprintf("; then %s minimizing", after.Round(100*time.Millisecond))
	}
	return ""
}

// allOf words n things that are all there are: "the 1", "all 3".
func allOf(n int) string {
	if n == 1 {
		return "the 1"
	}
	return fmt.Sprintf("all %d", n)
}

// unconfirmedHangs is the summary line's clause counting the hangs a
// fresh server answered in time: not findings.
func unconfirmedHangs(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d op timeouts not confirmed by a fresh sandbox (not findings: it answered in time)", n)
}

// distinctScenarios is the summary line's clause counting the findings'
// distinct minimized scenarios, when fewer than the findings: a user
// counting defects should know that two findings are one op.
func distinctScenarios(sum reports.Summary) string {
	switch n := sum.DistinctScenarios; {
	case n == len(sum.Findings):
		return ""
	case n == 1:
		return " (1 distinct scenario)"
	default:
		return fmt.Sprintf(" (%d distinct scenarios)", n)
	}
}

// writtenTo is the summary line's clause saying where the findings are.
func writtenTo(findings int, dir string) string {
	if findings == 0 {
		return ""
	}
	return ", written to " + dir
}

func interrupted(b bool) string {
	if b {
		return " (interrupted)"
	}
	return ""
}

// campaignMemoryLimit is the soft heap limit of a campaign, unless
// GOMEMLIMIT is set: with GOGC at 400 the heap may grow to five times what
// is live, and minimizing a long scenario is briefly live with tens of MB.
const campaignMemoryLimit = 48 << 20

// driveCampaign runs cfg as run and report both do: with the collector tuned
// for a campaign (GOGC 400, unless GOGC is set, under a soft limit of
// campaignMemoryLimit, unless GOMEMLIMIT is set) and, on a terminal, a
// progress line on stderr. ctx stops it early (SIGINT, SIGTERM).
func driveCampaign(ctx context.Context, e *env, cfg campaign.Config) (*campaign.Result, error) {
	if e.getenv("GOGC") == "" {
		// A campaign allocates short-lived worlds by the million and keeps
		// almost nothing: collecting less often trades a little memory,
		// still flat, for a third more throughput.
		debug.SetGCPercent(400)
	}
	if e.getenv("GOMEMLIMIT") == "" {
		// ...and the soft limit keeps that little memory little when
		// something big is briefly live.
		debug.SetMemoryLimit(campaignMemoryLimit)
	}
	terminal := isTerminal(e.stderr)
	stderr := &lockedWriter{w: e.stderr} // the progress and the written notes come from two goroutines
	cfg.Progress = progressReporter(stderr, terminal, e.progress)
	if cfg.Progress != nil {
		cfg.Written = writtenNote(stderr, terminal)
	}
	res, err := campaign.Run(ctx, cfg)
	if err == nil && terminal {
		fmt.Fprintln(e.stderr)
	}
	// A session the campaign did not wait for to its end (a check given
	// up on, a browser slow to die when --duration ran out) leaves its
	// {{tmp}} directories: one campaign a process, they are all this
	// campaign's.
	proxysut.RemoveTempDirs()
	return res, err
}

// lockedWriter serializes the writes to w of several goroutines: a
// writer given to Main need not be safe for concurrent use.
type lockedWriter struct {
	sync.Mutex
	w io.Writer
}

func (l *lockedWriter) Write(p []byte) (n int, err error) {
	l.Lock()
	n, err = l.w.Write(p)
	l.Unlock()
	return n, err
}

// writtenNote is a campaign's Written where progress is shown: a line on
// stderr for each finding file as it is written, so that a log read while
// the campaign runs (a CI job's, with --progress) shows what was found
// before the summary on stdout, at the end, lists it. On a terminal it
// clears the progress line it takes the place of.
func writtenNote(w io.Writer, terminal bool) func(campaign.Finding) {
	erase := ""
	if terminal {
		erase = "\r\x1b[K"
	}
	return func(f campaign.Finding) {
		if f.Path != "" {
			fmt.Fprintf(w, "%ssbxfuzz: progress: wrote %s: %s (check %d)\n", erase, f.Path, f.Invariant, f.Check)
		}
	}
}

// progressReporter is a campaign's Progress (called about once a second)
// writing to w: on a terminal, a line shown in place each time; elsewhere
// a line of its own once every every (a log read as it grows), or none
// when every is 0.
func progressReporter(w io.Writer, terminal bool, every time.Duration) func(campaign.Progress) {
	switch {
	case terminal:
		return func(p campaign.Progress) { fmt.Fprintf(w, "\r%s   ", progressLine(p)) }
	case every > 0:
		next := every
		return func(p campaign.Progress) {
			if p.Elapsed >= next {
				next += every * ((p.Elapsed-next)/every + 1)
				fmt.Fprintf(w, "sbxfuzz: progress: %s\n", progressLine(p))
			}
		}
	}
	return nil
}

// progressLine says how far a campaign has come.
func progressLine(p campaign.Progress) string {
	if p.ChecksOver {
		togo := ""
		if p.Queued > 0 {
			togo = fmt.Sprintf(", %d to go", p.Queued)
		}
		return fmt.Sprintf("checks %d done in %s (%s ops/s); minimizing: findings %d written%s  elapsed %s",
			p.Checks, p.Checked.Truncate(time.Second), reports.Rate(float64(p.Ops)/p.Checked.Seconds()), p.Findings, togo, p.Elapsed.Truncate(time.Second))
	}
	queued := ""
	if p.Queued > 0 {
		// Findings are written once minimized, behind the checks: a count
		// of those alone reads as fewer than the run will write.
		queued = fmt.Sprintf(" written, %d to minimize", p.Queued)
	}
	return fmt.Sprintf("checks %d  ops %d  %s ops/s  findings %d%s  elapsed %s",
		p.Checks, p.Ops, reports.Rate(float64(p.Ops)/p.Elapsed.Seconds()), p.Findings, queued, p.Elapsed.Truncate(time.Second))
}

// missingDirs are dir and those of its parents that do not exist yet,
// dir first: what making dir will make.
func missingDirs(dir string) []string {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) || d == filepath.Dir(d) {
			return missing
		}
		missing = append(missing, d)
	}
}
