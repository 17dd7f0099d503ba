package cli

import (
	"bytes"
	"flag"
	"fmt"
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
	fs := newFlags(e, "report", "[--seed N] [--checks N | --duration D] [--sut NAME] [--mutants] [--from FILE] [--format text|md|json] [--output FILE] [--svg FILE]", `
Report invariant coverage: run a campaign (as sbxfuzz run does, but writing
no findings) or read the JSON summary an earlier 'sbxfuzz run --format json'
or 'sbxfuzz report --format json' saved (--from), and print the summary, the
findings, how often each invariant of SPEC §8 was checked on ops of each
attack class of SPEC §9 with every empty cell flagged as a gap (explained or
not), how often each class got each result kind, the SPEC dimensions (each
internal range × edge × spelling, budgets and budget pairs, clock shapes,
byte classes, path and host shapes) with every point no scenario hit
flagged as a gap, and, with --mutants, the mutant kill table (a campaign of
up to --checks checks per mutant). --svg writes the invariants × classes
matrix and the dimensions as an SVG heat map. Output is the
same for the same seed and checks except on the lines that carry timing
(those containing "ops/s" or "seconds"). Exit 1 if there were findings or a
mutant survived, 3 if SIGINT or SIGTERM cut it short.`)
	seed := fs.Uint64("seed", 1, "campaign seed")
	checks := fs.Int("checks", 0, "number of scenarios to check (default 10000 when --duration is not set)")
	duration := fs.Duration("duration", 0, "run for this long (e.g. 10s); with --checks, whichever ends first")
	workers := fs.Int("workers", 0, "parallel workers (default: all cores)")
	sutName := fs.String("sut", sut.Reference, sutHelp)
	withMutants := fs.Bool("mutants", false, "also run every mutant and add the kill table")
	from := fs.String("from", "", "render the JSON summary in FILE instead of running a campaign")
	format := formatFlag(fs, "text", "md", "json")
	output := fs.String("output", "", "write the report to FILE (atomically) instead of stdout")
	svg := fs.String("svg", "", "also write the heat map (invariants × classes, SPEC dimensions) to FILE as SVG")
	timeout := timeoutFlag(fs)
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
	var rep *reports.Report
	if *from != "" {
		if set := setFlags(fs.FlagSet, campaignFlags); len(set) > 0 {
			return errorf(e, "report: --from renders a saved summary; it cannot be combined with --%s", strings.Join(set, ", --"))
		}
		data, err := fsutil.ReadInput(*from)
		if err != nil {
			return errorf(e, "%v", err)
		}
		if rep, err = reports.Load(bytes.NewReader(data)); err != nil {
			return errorf(e, "%s: %v", *from, err)
		}
	} else {
		if *checks < 0 || *duration < 0 || *workers < 0 {
			return errorf(e, "report: --checks, --duration and --workers must not be negative")
		}
		if err := checkBounds(*duration, *workers); err != nil {
			return errorf(e, "report: %v", err)
		}
		if *checks == 0 && *duration == 0 {
			*checks = 10000
		}
		if !checkTimeout(e, *timeout) {
			return ExitUsage
		}
		var st int
		if rep, st = reportCampaign(e, campaign.Config{Seed: *seed, Checks: *checks, Duration: *duration, Workers: *workers, Timeout: *timeout, Dimensions: true}, *sutName, *withMutants); rep == nil {
			return st
		}
	}
	return writeReport(e, rep, reports.Format(*format), *output, *svg)
}

// setFlags returns those of names that were set on the command line.
func setFlags(fs *flag.FlagSet, names []string) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n {
				out = append(out, n)
			}
		}
	})
	return out
}

// reportCampaign runs the campaign of a report and, if asked, the
// mutants; it returns nil and the exit status when it cannot.
func reportCampaign(e *env, cfg campaign.Config, sutName string, withMutants bool) (*reports.Report, int) {
	target, err := e.target(sutName)
	if err != nil {
		return nil, errorf(e, "--sut: %v", err)
	}
	cfg.Target = target
	ctx, stop := interruptible(e)
	defer stop()
	res, err := driveCampaign(ctx, e, cfg)
	if err != nil {
		return nil, errorf(e, "%v", err)
	}
	rep := reports.New(res, sutName)
	rep.MarkNotApplicable(target.NotApplicable)
	if withMutants && ctx.Err() == nil {
		limit := cfg.Checks
		if limit == 0 {
			limit = 10000
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
			if rel, err := filepath.Rel(filepath.Dir(output), svg); err == nil {
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
	fmt.Fprintf(e.stderr, "sbxfuzz report: seed %d, %d checks, %d ops (%.0f ops/s), sut %s: %d findings, %d gaps (%d unexplained), %s, %d result kinds never reached",
		rep.Seed, rep.Checks, rep.Ops, rep.OpsPerSecond, rep.SUT, len(rep.Findings), len(rep.Gaps), len(un), dimensionsStatus(rep), len(rep.UnreachedKinds))
	if rep.Mutants != nil {
		fmt.Fprintf(e.stderr, ", %d of %d mutants killed", len(rep.Mutants)-len(rep.Survivors()), len(rep.Mutants))
	}
	fmt.Fprintln(e.stderr, interrupted(rep.Interrupted))
	for _, g := range un {
		fmt.Fprintf(e.stderr, "sbxfuzz report: UNEXPLAINED GAP: %s was never checked on an op of class %s\n", g.Invariant, g.Class)
	}
	dun := rep.UnexplainedDimensionGaps()
	for _, g := range dun[:min(len(dun), maxDimensionGapLines)] {
		fmt.Fprintf(e.stderr, "sbxfuzz report: UNEXPLAINED DIMENSION GAP: no scenario hit %s %s: %s\n", g.Dimension, g.Group, g.Point)
	}
	if len(dun) > maxDimensionGapLines {
		fmt.Fprintf(e.stderr, "sbxfuzz report: … and %d more unexplained dimension gaps (the report lists them all)\n", len(dun)-maxDimensionGapLines)
	}
	if rep.Interrupted {
		return ExitInterrupted
	}
	if len(rep.Findings) > 0 || len(rep.Survivors()) > 0 {
		return ExitFinding
	}
	return ExitOK
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
	return fmt.Sprintf("%d dimension points unhit (%d unexplained)", len(rep.DimensionGaps), len(rep.UnexplainedDimensionGaps()))
}
