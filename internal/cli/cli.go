// Package cli is the sbxfuzz command line: one flag set per subcommand,
// flags and arguments in any order, exit status 0 (nothing wrong), 1 (a
// finding), 2 (bad usage or input) or 3 (interrupted). Every error it
// prints starts with "sbxfuzz: ", except a scenario file's parse error,
// which starts with its "FILE:LINE: " (SPEC §11).
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Exit statuses (SPEC §11); ExitInterrupted is the fourth.
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
	program        string          // the words that run this command line, which every command it prints starts with
	exit           func(int)       // os.Exit: a second interrupt stops at once
	treeDir        string          // --tree-dir
	profile        string          // --profile
	timeout        time.Duration   // --timeout
	startTimeout   time.Duration   // --start-timeout
	progress       time.Duration   // --progress: a progress line this often where stderr is no terminal
	given          map[string]bool // the flags set on the command line, by name
}

// errEmptySUT refuses a --sut given empty: most often a variable left
// unset (--sut "$SANDBOX"), whose run would judge the reference, or grade
// the mutants, and pass where nothing of the user's was tested.
var errEmptySUT = errors.New("an empty name (a variable left unset?); leave --sut out for the default")

// target resolves a --sut value, with the command's --tree-dir, else
// $SBXFUZZ_TREE_DIR, for the real-disk doors.
func (e *env) target(name string) (sut.Target, error) {
	if name == "" {
		return sut.Target{}, errEmptySUT
	}
	dir := e.treeDir
	if dir == "" {
		dir = e.getenv(realfs.TreeDirEnv)
	}
	if e.profile != "" && !strings.HasPrefix(name, proxysut.Prefix) && !strings.HasPrefix(name, realsut.MCPPrefix) {
		return sut.Target{}, fmt.Errorf("--profile %s: only the %s and %s doors take a profile, not %q", e.profile, realsut.MCPPrefix, proxysut.Prefix, name)
	}
	profile := e.profile
	switch {
	case profile != "":
	case strings.HasPrefix(name, proxysut.Prefix):
		profile = e.getenv(proxysut.ProfileEnv)
	default:
		profile = e.getenv(realsut.ProfileEnv)
	}
	t, err := sut.LookupWith(name, sut.Options{TreeDir: dir, Profile: profile, Timeouts: realsut.Timeouts{Op: e.timeout, Start: e.startTimeout}}, e.extra...)
	if err != nil {
		return sut.Target{}, err
	}
	t.Flags = append(slices.Clone(t.Flags), e.timeoutFlags()...)
	if e.given["tree-dir"] && e.treeDir != "" && (name == realsut.OSRootName || strings.HasPrefix(name, realsut.MCPPrefix)) {
		// Where the tree lies can change what is judged: a sandbox around
		// a server may hide what lies beside the directories it allows
		// (firejail's whitelist empties their top directory).
		abs, err := filepath.Abs(e.treeDir)
		if err != nil {
			return sut.Target{}, fmt.Errorf("--tree-dir: %w", err)
		}
		t.Flags = append(t.Flags, "--tree-dir", abs)
	}
	return t, nil
}

// timeoutFlags are --timeout and --start-timeout as given on the command
// line, for the reproduce line of a finding: a hang judged with a timeout
// of its own is judged the same way in the replay. Left out, their
// defaults hold in both.
func (e *env) timeoutFlags() []string {
	var flags []string
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"timeout", e.timeout}, {"start-timeout", e.startTimeout}} {
		if e.given[f.name] {
			flags = append(flags, "--"+f.name, f.d.String())
		}
	}
	return flags
}

// treeDirFlag registers --tree-dir, and --profile for the mcp: and
// proxy: doors, on a command that takes --sut.
func treeDirFlag(e *env, fs *flagSet) {
	fs.StringVar(&e.profile, "profile", "", "the mcp: or proxy: door's profile: a built-in one by name (mcp: "+strings.Join(mcp.BuiltinNames(), ", ")+"; mcp: fetch servers, judged on their connections: "+strings.Join(proxysut.ServerNames(), ", ")+"; proxy: "+strings.Join(proxysut.BuiltinNames(), ", ")+") or a JSON file, docs/real-sandboxes.md (default: $"+realsut.ProfileEnv+" if set, else server-filesystem, for mcp:; $"+proxysut.ProfileEnv+" if set, else "+proxysut.DefaultProfile+", for proxy:)")
	fs.StringVar(&e.treeDir, "tree-dir", "", "directory the real-disk doors (osroot, mcp:) build their trees under, one locked directory a run, removed at its end, and those of dead runs at the next start (default: $"+realfs.TreeDirEnv+" if set, else sbxfuzz/trees under the user's cache directory, not the temporary directory)")
}

// sutHelp is the --sut flag's help: every door a sandbox comes in by
// (package sut), and what the program registered.
const sutHelp = `sandbox under test: "reference", "mutant:NAME", "exec:COMMAND", "mcp:COMMAND", "osroot", "proxy:COMMAND", or a name the program registered (see 'sbxfuzz help')`

// sutDoors is the usage's list of --sut values, one a line.
const sutDoors = `  reference      the reference sandbox, docs/SPEC.md §5 (the default)
  mutant:NAME    the reference wrong in one way real sandboxes have been
                 wrong ('sbxfuzz mutants' runs them all; an unknown NAME lists them)
  exec:COMMAND   a sandbox in another process speaking sbxfuzz/1 on its
                 stdin and stdout (docs/SPEC.md §12), e.g. "exec:python3 sandbox.py"
  mcp:COMMAND    an MCP filesystem server started with COMMAND, over stdio,
                 on a world materialized under --tree-dir (docs/SPEC.md §13);
                 with a fetch server's --profile, an MCP server whose tool
                 fetches URLs, in a network namespace answered by the world
                 (docs/SPEC.md §14; Linux)
  osroot         Go's os.Root on a world materialized under --tree-dir
                 (docs/SPEC.md §13)
  proxy:COMMAND  an HTTP forward proxy started with COMMAND in a network
                 namespace answered by the world; each net_fetch goes
                 through it (docs/SPEC.md §14; Linux)
  NAME           a sandbox the program registered (package sbxcli)
`

// exitStatuses is the usage's list of exit statuses (SPEC §11).
const exitStatuses = `  0  nothing wrong
  1  a finding: a violated invariant, an unmet expectation, a surviving mutant
  2  bad usage or bad input
  3  interrupted by SIGINT, SIGTERM or SIGHUP; the findings so far are kept
`

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
		{"mutants", "run a campaign against every mutant, or each --sut sandbox, and print the kill table", runMutants},
		{"report", "invariant coverage: invariants × classes, classes × kinds, gaps, heat map", runReport},
		{"serve", "serve a Go sandbox over the sbxfuzz/1 process protocol on stdin and stdout", runServe},
		{"profile", "print a built-in profile of the mcp: or proxy: door as JSON, to copy and change", runProfile},
		{"version", "print the version of sbxfuzz", runVersion},
	}
}

// Main runs the sbxfuzz command line with args (without the program name)
// and returns the exit status. extra are sandboxes --sut may name besides
// the reference and the mutants.
func Main(args []string, stdout, stderr io.Writer, getenv func(string) string, extra ...sut.Target) int {
	return MainAs("sbxfuzz", args, stdout, stderr, getenv, extra...)
}

// MainAs is Main for a program that is run as program ("mysbx", "go run
// ./cmd/mysbx"): every command it prints — the reproduce lines of
// findings, a report's, those of the help — starts with those words, so
// that it runs as printed with the sandboxes extra only that program
// knows.
func MainAs(program string, args []string, stdout, stderr io.Writer, getenv func(string) string, extra ...sut.Target) int {
	e := &env{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: getenv, extra: extra, exit: os.Exit, program: program}
	if len(args) == 0 {
		usage(e, stderr)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		usage(e, stdout)
		return ExitOK
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(e, args[1:])
		}
	}
	return errorf(e, "unknown command %q (run 'sbxfuzz help' for the commands)", name)
}

// usage writes the program's usage: the commands, how flags are read, the
// --sut values and the exit statuses.
func usage(e *env, w io.Writer) {
	fmt.Fprintln(w, "sbxfuzz: an adversarial, property-based fuzzing harness for capability sandboxes")
	fmt.Fprintf(w, "\nusage: %s COMMAND [flags] [args]\n\ncommands:\n", e.invocation())
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, e.asProgram(`
Run 'sbxfuzz COMMAND -h' for a command's flags. Flags may come before or
after the arguments; -- ends the flags.

--sut picks the sandbox under test:
`+sutDoors+`
Exit status:
`+exitStatuses+`
Errors are printed as "sbxfuzz: reason", or as "FILE:LINE: reason" for a
scenario file that does not parse.
`))
}

// asProgram rewrites the commands quoted in text, 'sbxfuzz ARGS', to start
// with the words that run this program: help and errors name a command
// that works in a program built with sbxcli, which the stock sbxfuzz
// would not know the sandboxes of.
func (e *env) asProgram(text string) string {
	if e.invocation() == "sbxfuzz" {
		return text
	}
	return strings.ReplaceAll(text, "'sbxfuzz ", "'"+e.program+" ")
}

// invocation is the words that run this program: "sbxfuzz" unless it was
// started by MainAs.
func (e *env) invocation() string {
	if e.program == "" {
		return "sbxfuzz"
	}
	return e.program
}

// printError prints err as every error of the command line is printed: a
// scenario file's parse error as it is, "FILE:LINE: reason" (SPEC §11),
// anything else after "sbxfuzz: ". It returns the usage status.
func printError(e *env, err error) int {
	if _, ok := err.(*scenario.ParseError); ok {
		fmt.Fprintln(e.stderr, inertLines(err.Error())) // a file's name is anyone's
		return ExitUsage
	}
	return errorf(e, "%v", err)
}

// errorf prints an error line and returns the usage status.
func errorf(e *env, format string, args ...any) int {
	// An error may quote a sandbox's words (a server's stderr as it failed
	// to start).
	fmt.Fprintf(e.stderr, "sbxfuzz: %s\n", inertLines(e.asProgram(fmt.Sprintf(format, args...))))
	return ExitUsage
}

// inertLines is s with each of its lines made inert, the lines kept.
func inertLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = inert(l)
	}
	return strings.Join(lines, "\n")
}
