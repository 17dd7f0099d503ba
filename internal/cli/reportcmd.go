package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// campaignFlags are the flags of report that describe a campaign, which
// --from replaces.
var campaignFlags = []string{"seed", "checks", "duration", "workers", "sut", "mutants"}

func runReport(e *env, args []string) int {
	fs := newFlags(e, "report", "[--seed N] [--checks N | --duration D] [--workers W] [--sut NAME [--profile NAME|FILE]] [--timeout D] [--start-timeout D] [--tree-dir DIR] [--mutants] [--progress D] [--from FILE] [--format text|md|json] [--output FILE] [--svg FILE]", `
Report invariant coverage: run a campaign (as sbxfuzz run does, but writing no
findings) or read the JSON summary an earlier 'sbxfuzz run --format json' or
'sbxfuzz report --format json' saved (--from), and print the summary, the
findings, how often each invariant of docs/SPEC.md §8 was checked on ops of
each attack class of docs/SPEC.md §9 with every empty cell flagged as a gap
(explained or not), how often each class got each result kind, the SPEC dimensions (each
internal range × edge × spelling, budgets and budget pairs, clock shapes, byte
classes, path and host shapes) with every point no scenario hit flagged as a
gap, and, with --mutants, the mutant kill table (a campaign of up to --checks
checks per mutant). A cell or point nothing explains is a gap, the generators'
fault, only in a campaign of at least the default 10000 checks; a shorter one
lists it as not hit in N checks. --svg writes the invariants × classes matrix
and the dimensions as an SVG heat map. Output is the same for the same seed
and checks except on the lines that carry timing (those containing "ops/s" or
"seconds"). Exit 1 if there were findings or a mutant survived, 3 if SIGINT,
SIGTERM or SIGHUP cut it short.`)
	seed := fs.Uint64("seed", 1, "campaign seed")
	checks, duration, workers := sizeFlags(fs)
	progressFlag(e, fs)
	sutName := fs.String("sut", sut.Reference, sutHelp)
	treeDirFlag(e, fs)
	withMutants := fs.Bool("mutants", false, "also run every mutant and add the kill table")
	from := fs.String("from", "", "render the JSON summary in FILE instead of running a campaign")
	format := formatFlag(fs, "text", "md", "json")
	output := fs.String("output", "", "write the report to FILE (atomically) instead of stdout")
	svg := fs.String("svg", "", "also write the heat map (invariants × classes, SPEC dimensions) to FILE as SVG")
	timeout := timeoutFlag(e, fs)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if !checkFormat(e, *format, "text", "md", "json") {
		return ExitUsage
	}
	if fs.NArg() > 0 {
		return errorf(e, "report: unexpected argument %q", fs.Arg(0))
	}
	for _, o := range []struct{ flag, path string }{{"output", *output}, {"svg", *svg}} {
		if o.path != "" {
			if err := fsutil.CheckOutFile(o.path); err != nil {
				return errorf(e, "--%s: %v", o.flag, err)
			}
		}
	}
	if *output != "" && *svg != "" && sameFile(*output, *svg) {
		return errorf(e, "--svg: %s: the file --output names; the heat map needs a file of its own", *svg)
	}
	for _, o := range []struct{ flag, path string }{{"output", *output}, {"svg", *svg}} {
		if *from != "" && o.path != "" && sameFile(*from, o.path) {
			return errorf(e, "--%s: %s: the summary --from reads; it would be written over", o.flag, o.path)
		}
	}
	var rep *reports.Report
	if *from != "" {
		if set := setFlags(fs.FlagSet, campaignFlags); len(set) > 0 {
			return errorf(e, "report: --from renders a saved summary; it cannot be combined with --%s", strings.Join(set, ", --"))
		}
		data, err := readData(*from)
		if err != nil {
			return errorf(e, "%v", err)
		}
		if rep, err = reports.Load(bytes.NewReader(data)); err != nil {
			return errorf(e, "%s: %v", *from, err)
		}
	} else {
		if err := checkCampaign(fs, checks, *duration, *workers); err != nil {
			return errorf(e, "report: %v", err)
		}
		if !checkTimeout(e, *timeout) {
			return ExitUsage
		}
		var st int
		if rep, st = reportCampaign(e, campaign.Config{Seed: *seed, Checks: *checks, Duration: *duration, Workers: *workers, Timeout: *timeout, StartTimeout: e.startTimeout, Dimensions: true}, *sutName, *withMutants); rep == nil {
			return st
		}
	}
	rep.SetCommand(e.invocation())
	return writeReport(e, rep, reports.Format(*format), *output, *svg)
}

// sameFile reports whether paths a and b name one file: the same path
// once made absolute, the same file through a link, or, for files not
// made yet, the same name in one directory reached by two paths (a link
// to it), or names that differ only in case in a directory whose disk
// folds case (macOS's and Windows' by default).
func sameFile(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	stA, errA := os.Stat(a)
	stB, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(stA, stB)
	}
	if ba, bb := filepath.Base(a), filepath.Base(b); ba != bb && (!strings.EqualFold(ba, bb) || !foldsCase(filepath.Dir(a))) {
		return false
	}
	dirA, errA := os.Stat(filepath.Dir(a))
	dirB, errB := os.Stat(filepath.Dir(b))
	return errA == nil && errB == nil && os.SameFile(dirA, dirB)
}

// foldsCase reports whether the disk of directory dir finds a file by a
// name that differs from its own in case: it makes an empty file there,
// looks it up by its name in upper case, and removes it. A variable, so
// that a test on a disk that does not fold case can say one does.
var foldsCase = func(dir string) bool {
	f, err := os.CreateTemp(dir, ".sbxfuzz-case-")
	if err != nil {
		return false // nothing can be written there: neither file will be
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	_, err = os.Stat(filepath.Join(dir, strings.ToUpper(filepath.Base(name))))
	return err == nil
}

// reportCampaign runs the campaign of a report and, if asked, the
// mutants; it returns nil and the exit status when it cannot.
func reportCampaign(e *env, cfg campaign.Config, sutName string, withMutants bool) (*reports.Report, int) {
	target, err := e.target(sutName)
	if err != nil {
		return nil, errorf(e, "--sut: %v", err)
	}
	cfg.Target = target
	ctx, abort, stop := interruptible(e)
	defer stop()
	cfg.Abort = abort
	res, err := driveCampaign(ctx, e, cfg)
	if err != nil {
		return nil, errorf(e, "%v", err)
	}
	rep := campaign.NewReport(res, sutName)
	rep.SUTFlags, rep.Unasked = target.Flags, target.Unasked
	rep.MarkNotApplicable(target.NotApplicable)
	rep.MarkKindsNotApplicable(target.KindsNotApplicable)
	if withMutants && ctx.Err() == nil {
		limit := cfg.Checks
		if limit == 0 {
			limit = campaign.DefaultChecks
		}
		rep.Mutants = campaign.KillMutants(ctx, mutants.All(), cfg.Seed, limit, cfg.Workers)
		rep.Interrupted = ctx.Err() != nil
	}
	return rep, ExitOK
}

// writeReport writes the report and the heat map, says what it found on
// stderr, and returns the exit status.
func writeReport(e *env, rep *reports.Report, format reports.Format, output, svg string) int {
	if svg != "" {
		var buf bytes.Buffer
		if err := rep.WriteSVG(&buf); err != nil {
			return errorf(e, "%v", err)
		}
		if err := fsutil.WriteAtomic(svg, buf.Bytes(), 0o644); err != nil {
			return errorf(e, "writing the heat map: %v", err)
		}
		if output != "" && format == reports.Markdown {
			// Both absolute: Rel fails on one relative path and one not.
			out, errO := filepath.Abs(output)
			img, errI := filepath.Abs(svg)
			if rel, err := filepath.Rel(filepath.Dir(out), img); errO == nil && errI == nil && err == nil {
				rep.SetImage(filepath.ToSlash(rel))
			}
		}
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf, format); err != nil {
		return errorf(e, "%v", err)
	}
	if output == "" {
		if _, err := e.stdout.Write(buf.Bytes()); err != nil {
			return errorf(e, "%v", err)
		}
	} else if err := fsutil.WriteAtomic(output, buf.Bytes(), 0o644); err != nil {
		return errorf(e, "writing the report: %v", err)
	}
	return reportStatus(e, rep)
}

func reportStatus(e *env, rep *reports.Report) int {
	un := rep.UnexplainedGaps()
	fmt.Fprintf(e.stderr, "sbxfuzz report: seed %d, %d checks, %d ops (%s ops/s), sut %s: %d findings, %d gaps (%s), %s, %d result kinds never reached",
		rep.Seed, rep.Checks, rep.Ops, reports.Rate(rep.OpsPerSecond), inert(rep.SUT), len(rep.Findings), len(rep.Gaps), unexplainedStatus(rep, len(un)), dimensionsStatus(rep), len(rep.UnreachedKinds))
	if rep.Mutants != nil {
		fmt.Fprintf(e.stderr, ", %d of %d mutants killed", len(rep.Mutants)-len(rep.Survivors()), len(rep.Mutants))
	}
	// A summary given to --from is data: its words are made inert.
	fmt.Fprintln(e.stderr, inert(rep.StricterClause()+rep.SkippedLinesClause()+interrupted(rep.Interrupted)))
	for _, w := range rep.SandboxWarnings() {
		fmt.Fprintf(e.stderr, "sbxfuzz report: WARNING: %s\n", inert(w))
	}
	dun := rep.UnexplainedDimensionGaps()
	if rep.Full() {
		printGaps(e, un, dun)
	} else if len(un)+len(dun) > 0 {
		fmt.Fprintf(e.stderr, "sbxfuzz report: %s not hit in %d checks, a short campaign: only %d checks or more (the default) call them gaps\n",
			countOf(len(un), "cell", len(dun), "dimension point"), rep.Checks, campaign.DefaultChecks)
	}
	if rep.Interrupted {
		return ExitInterrupted
	}
	if rep.Failed() || len(rep.Survivors()) > 0 { // a flaky finding alone is not a failure, but for an escape
		return ExitFinding
	}
	return ExitOK
}

// printGaps names on stderr the gaps of a full campaign that nothing
// explains: every cell, and the first maxDimensionGapLines points.
func printGaps(e *env, cells []reports.Gap, points []reports.DimensionGap) {
	for _, g := range cells {
		fmt.Fprintf(e.stderr, "sbxfuzz report: UNEXPLAINED GAP: %s was never checked on an op of class %s\n", g.Invariant, g.Class)
	}
	for _, g := range points[:min(len(points), maxDimensionGapLines)] {
		fmt.Fprintf(e.stderr, "sbxfuzz report: UNEXPLAINED DIMENSION GAP: no scenario hit %s %s: %s\n", g.Dimension, g.Group, g.Point)
	}
	if len(points) > maxDimensionGapLines {
		fmt.Fprintf(e.stderr, "sbxfuzz report: … and %d more unexplained dimension gaps (the report lists them all)\n", len(points)-maxDimensionGapLines)
	}
}

// countOf words two counts of things, leaving out a zero one: "2 cells and
// 77 dimension points", "77 dimension points".
func countOf(n int, noun string, m int, noun2 string) string {
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{n, noun}, {m, noun2}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.noun)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", c.n, c.noun))
		}
	}
	return strings.Join(parts, " and ")
}

// unexplainedStatus words n cells or points nothing explains, for the
// summary line: "n unexplained", or "n not hit in N checks" in a short
// campaign when n is not 0.
func unexplainedStatus(rep *reports.Report, n int) string {
	if rep.Full() || n == 0 {
		return fmt.Sprintf("%d unexplained", n)
	}
	return fmt.Sprintf("%d not hit in %d checks", n, rep.Checks)
}

// maxDimensionGapLines is how many unexplained dimension gaps stderr names;
// the report names them all.
const maxDimensionGapLines = 10

// dimensionsStatus is the summary line's clause on the SPEC dimension
// points: how many no scenario hit and how many of those nothing explains.
func dimensionsStatus(rep *reports.Report) string {
	if !rep.HasDimensions() {
		return "no dimension points (not in the summary)"
	}
	return fmt.Sprintf("%d dimension points unhit (%s)", len(rep.DimensionGaps), unexplainedStatus(rep, len(rep.UnexplainedDimensionGaps())))
}
