package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
)

// newFlags returns a flag set for a subcommand. Its -h prints the
// synopsis, the description and the flags to stdout; a bad flag is a usage
// error (parseFlags).
func newFlags(e *env, name, synopsis, description string) *flagSet {
	fs := flag.NewFlagSet("sbxfuzz "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parseFlags prints the error, with the prefix of every error
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, usage: func(w io.Writer) {
		var b strings.Builder
		fmt.Fprintf(&b, "usage: %s %s %s\n\n%s\n", e.invocation(), name, synopsis, strings.TrimSpace(description))
		if hasFlags(fs) {
			fmt.Fprintln(&b, "\nflags:")
			fs.SetOutput(&b)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
		io.WriteString(w, e.asProgram(b.String()))
	}}
}

// flagSet is a subcommand's flags and its full usage text, printed on -h.
type flagSet struct {
	*flag.FlagSet
	usage func(io.Writer)
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parseFlags parses args, flags and arguments in any order (-- ends the
// flags); it reports -h as a clean exit and bad flags as usage errors. ok
// is false when the caller should return status.
func parseFlags(e *env, fs *flagSet, args []string) (status int, ok bool) {
	err := fs.Parse(interspersed(fs.FlagSet, args))
	switch {
	case err == nil:
		e.given = map[string]bool{}
		fs.Visit(func(f *flag.Flag) { e.given[f.Name] = true })
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		fs.usage(e.stdout)
		return ExitOK, false
	}
	name := strings.TrimPrefix(fs.Name(), "sbxfuzz ")
	return errorf(e, "%s: %v (run '%s %s -h' for usage)", name, err, e.invocation(), name), false
}

// interspersed reorders args for the flag package, which stops at the first
// argument that is not a flag: the flags (each with its value, when it
// takes one as the next argument), then "--", then the other arguments in
// their order. An argument after "--" is never a flag. When the last flag
// lacks its value, the flags alone are returned, so that the flag package
// reports it rather than take "--" as the value.
func interspersed(fs *flag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case len(a) < 2 || a[0] != '-':
			rest = append(rest, a) // "-" alone is an argument (stdin, by convention)
		default:
			flags = append(flags, a)
			if !takesNextArg(fs, a) {
				continue
			}
			if i+1 == len(args) {
				return flags
			}
			i++
			flags = append(flags, args[i])
		}
	}
	return append(append(flags, "--"), rest...)
}

// takesNextArg reports whether flag argument a ("-name" or "--name")
// takes the next argument as its value: a known flag that is not boolean,
// written without "=value".
func takesNextArg(fs *flag.FlagSet, a string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false // the flag package reports it
	}
	b, isBool := f.Value.(interface{ IsBoolFlag() bool })
	return !isBool || !b.IsBoolFlag()
}

// formatFlag registers --format; allowed lists its values, the first the
// default.
func formatFlag(fs *flagSet, allowed ...string) *string {
	return fs.String("format", allowed[0], "output format: "+strings.Join(allowed, ", "))
}

func checkFormat(e *env, f string, allowed ...string) bool {
	for _, a := range allowed {
		if f == a {
			return true
		}
	}
	fmt.Fprintf(e.stderr, "sbxfuzz: --format %q: want one of %s\n", f, strings.Join(allowed, ", "))
	return false
}

// MaxWorkers is the largest --workers a campaign accepts.
const MaxWorkers = 256

// MinDuration is the shortest --duration a campaign accepts: anything
// shorter ends before a single check.
const MinDuration = time.Millisecond

// sizeFlags registers --checks, --duration and --workers, the flags that
// size a campaign (checked by checkCampaign).
func sizeFlags(fs *flagSet) (checks *int, duration *time.Duration, workers *int) {
	checks = fs.Int("checks", 0, fmt.Sprintf("number of scenarios to draw and check, at least 1 (default %d when --duration is not set); a real sandbox is asked those it can express, which the summary counts", campaign.DefaultChecks))
	duration = fs.Duration("duration", 0, "run for this long (e.g. 10s, at least 1ms); with --checks, whichever ends first")
	workers = fs.Int("workers", 0, "parallel workers (default: all cores)")
	return checks, duration, workers
}

// progressFlag registers --progress, kept in e: driveCampaign reads it.
func progressFlag(e *env, fs *flagSet) {
	fs.Var(nonNegative{&e.progress}, "progress", "where stderr is no terminal (a log, CI), a progress line there every `duration` (e.g. 30s); on a terminal one is shown in place each second whatever this says")
}

// nonNegative is a flag.Value of a duration that may not be negative: a
// negative one is a mistake, not "never".
type nonNegative struct{ d *time.Duration }

func (v nonNegative) String() string {
	if v.d == nil {
		return "0s"
	}
	return v.d.String()
}

func (v nonNegative) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 30s")
	}
	if d < 0 {
		return errors.New("must not be negative")
	}
	*v.d = d
	return nil
}

// defaultOutHelp says where findings go when --out is not given.
const defaultOutHelp = "$" + finding.OutEnv + " if set, else sbxfuzz/findings/SUT under the user's cache directory — ~/.cache on Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows, the temporary directory if there is none — with SUT the --sut value, and its --profile when one is given, ':' and spaces turned into '-'"

// outFlag registers --out, the directory findings are written to; ""
// means the default (env.outDir).
func outFlag(fs *flagSet) *string {
	return fs.String("out", "", "directory the minimized findings are written to (default: "+defaultOutHelp+")")
}

// outDir returns --out, or the default directory of the findings of
// sandbox sutName driven with the sut flags of its target (a --profile)
// when it is not given: never the working directory, so that a campaign
// run in a checkout leaves it clean. An --out given empty is an error,
// not the default: it is most often a variable left unset (--out "$DIR"),
// and its findings would land where nobody looks.
func (e *env) outDir(fs *flagSet, out, sutName string, sutFlags []string) (string, error) {
	dir := finding.DefaultDir(finding.SUTKey(sutName, sutFlags))
	switch {
	case out != "":
		dir = out
	case len(setFlags(fs.FlagSet, []string{"out"})) > 0:
		return "", errors.New("--out: an empty directory name (a variable left unset?); leave --out out for the default directory")
	case e.getenv(finding.OutEnv) != "":
		dir = e.getenv(finding.OutEnv)
	}
	// Absolute, so that the reproduce lines in the findings' headers
	// replay them from any directory, not only the one the run began in.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir, nil
}

// checkCampaign checks the flags that size a campaign, as run and report
// take them: --checks and --duration, when given, must be positive (0 is
// an error, not "unbounded"), a duration at least MinDuration, and
// --workers between 0 (all cores) and MaxWorkers. When neither --checks
// nor --duration is given, the campaign makes campaign.DefaultChecks
// checks.
func checkCampaign(fs *flagSet, checks *int, duration time.Duration, workers int) error {
	set := setFlags(fs.FlagSet, []string{"checks", "duration"})
	switch {
	case slices.Contains(set, "checks") && *checks <= 0:
		return fmt.Errorf("--checks %d: want a positive number of checks", *checks)
	case slices.Contains(set, "duration") && duration <= 0:
		return fmt.Errorf("--duration %s: want a positive duration", duration)
	case duration > 0 && duration < MinDuration:
		return fmt.Errorf("--duration %s: too short to check anything (at least %s)", duration, MinDuration)
	case workers < 0:
		return fmt.Errorf("--workers %d: must not be negative (0 means all cores)", workers)
	case workers > MaxWorkers:
		return fmt.Errorf("--workers %d: at most %d", workers, MaxWorkers)
	}
	if len(set) == 0 {
		*checks = campaign.DefaultChecks
	}
	return nil
}

// setFlags returns those of names that were set on the command line.
func setFlags(fs *flag.FlagSet, names []string) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			out = append(out, f.Name)
		}
	})
	return out
}
