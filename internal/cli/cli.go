// Package cli is the sbxfuzz command line: one flag set per subcommand,
// exit status 0 (nothing wrong), 1 (a finding) or 2 (bad usage or input).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// Exit statuses (SPEC §11).
const (
	ExitOK      = 0 // nothing wrong
	ExitFinding = 1 // a violated invariant, an unmet expectation, a surviving mutant
	ExitUsage   = 2 // bad usage or bad input
)

// env is what a command may touch: its arguments and output streams, and
// the sandboxes the program registered beyond the built-in ones.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	extra          []sut.Target
	exit           func(int) // os.Exit: a second interrupt stops at once
}

// target resolves a --sut value.
func (e *env) target(name string) (sut.Target, error) { return sut.Lookup(name, e.extra...) }

// session resolves a --sut value and starts a session of it, for a command
// that judges scenarios one at a time.
func (e *env) session(name string) (core.Factory, func() error, error) {
	t, err := e.target(name)
	if err != nil {
		return nil, nil, err
	}
	return t.Start()
}

// sutHelp is the --sut flag's help.
const sutHelp = `sandbox under test: "reference", "mutant:NAME", or a name the program registered`

// command is one subcommand: its name, a one-line summary, and its run
// function, which parses its own flags.
type command struct {
	name    string
	summary string
	run     func(e *env, args []string) int
}

func commands() []command {
	return []command{
		{"run", "run a campaign: generate, check every invariant, minimize findings", runCampaign},
		{"replay", "replay scenarios, check expectations and invariants, print the step table", runReplay},
		{"minimize", "shrink a failing scenario while it fails the same invariant", runMinimize},
		{"import", "turn FuzzScenario inputs (go test -fuzz, libFuzzer) into minimized .sbx findings", runImport},
		{"fmt", "print scenarios in canonical form (-w rewrites them)", runFmt},
		{"mutants", "run a campaign against every mutant and print the kill table", runMutants},
		{"report", "invariant coverage: invariants × classes, classes × kinds, gaps, heat map", runReport},
		{"serve", "serve a Go sandbox over the sbxfuzz/1 process protocol on stdin and stdout", runServe},
	}
}

// Main runs the sbxfuzz command line with args (without the program name)
// and returns the exit status. extra are sandboxes --sut may name besides
// the reference and the mutants.
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string, extra ...sut.Target) int {
	e := &env{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: getenv, extra: extra, exit: os.Exit}
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(e, args[1:])
		}
	}
	fmt.Fprintf(stderr, "sbxfuzz: unknown command %q\n", name)
	usage(stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "sbxfuzz: an adversarial, property-based fuzzing harness for capability sandboxes")
	fmt.Fprintln(w, "\nusage: sbxfuzz COMMAND [flags] [args]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'sbxfuzz COMMAND -h' for a command's flags. Exit status: 0 nothing wrong, 1 a finding, 2 bad usage or input.")
}

// newFlags returns a flag set for a subcommand. Its -h prints the
// synopsis, the description and the flags to stdout; a bad flag prints the
// flag package's one-line error and a hint to stderr.
func newFlags(e *env, name, synopsis, description string) *flagSet {
	fs := flag.NewFlagSet("sbxfuzz "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {} // parseFlags prints what is needed, once
	return &flagSet{FlagSet: fs, usage: func(w io.Writer) {
		fmt.Fprintf(w, "usage: sbxfuzz %s %s\n\n%s\n", name, synopsis, strings.TrimSpace(description))
		if hasFlags(fs) {
			fmt.Fprintln(w, "\nflags:")
			fs.SetOutput(w)
			fs.PrintDefaults()
			fs.SetOutput(e.stderr)
		}
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

// parseFlags parses args; it reports -h as a clean exit and bad flags as
// usage errors. ok is false when the caller should return status.
func parseFlags(e *env, fs *flagSet, args []string) (status int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		fs.usage(e.stdout)
		return ExitOK, false
	}
	// The flag package has printed the error itself.
	fmt.Fprintf(e.stderr, "run '%s -h' for usage\n", fs.Name())
	return ExitUsage, false
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

// checkBounds checks the upper bound of --workers and the lower bound of a
// set --duration (0 means unset); the caller has refused negative values.
func checkBounds(duration time.Duration, workers int) error {
	if workers > MaxWorkers {
		return fmt.Errorf("--workers %d: at most %d", workers, MaxWorkers)
	}
	if duration > 0 && duration < MinDuration {
		return fmt.Errorf("--duration %s: too short to check anything (at least %s)", duration, MinDuration)
	}
	return nil
}

// errorf prints an error line and returns the usage status.
func errorf(e *env, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "sbxfuzz: "+format+"\n", args...)
	return ExitUsage
}
