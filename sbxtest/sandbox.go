package sbxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/minimize"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Sandbox is a sandbox under test. Only Factory is required.
type Sandbox struct {
	// Name names the sandbox in findings and reproducers; "" means
	// "custom".
	Name string
	// Factory builds the sandbox over a grant and a world, once per run of
	// a scenario (twice per check: the oracle replays every scenario). It
	// may return an error; a sandbox it builds may be an io.Closer, closed
	// when the run ends or hangs.
	Factory core.Factory
	// Command, when set, runs the sbxfuzz command line with this sandbox
	// registered under Name (see package sbxcli), written as it runs from
	// the root of the module that holds the test, for example
	// "go run ./cmd/sbxfuzz": failures print "Command replay --sut Name
	// FILE" as the way to replay a reproducer, in words that work from any
	// directory ("go -C ROOT run ./cmd/sbxfuzz ...", FILE absolute). When
	// empty they print the go test command, run in the test's package
	// directory, that makes the Replay test replay that file.
	Command string
	// ReplayTest is the name of the test that calls Replay, for that go
	// test command; "" means "TestCorpus".
	ReplayTest string
	// Timeout is how long one op may take before it is a hang (a total
	// finding); 0 means oracle.DefaultTimeout.
	Timeout time.Duration
	// MinimizeTime bounds the minimization of one failure; 0 means 10 s.
	MinimizeTime time.Duration
	// Out is the directory reproducers are saved in; "" means
	// $SBXFUZZ_OUT, else sbxfuzz/findings/NAME under the user's cache
	// directory, as the command line's, never a directory every user of
	// the machine shares when the user has a cache directory.
	Out string
}

func (sb Sandbox) name() string {
	if sb.Name == "" {
		return "custom"
	}
	return sb.Name
}

func (sb Sandbox) out() string {
	switch {
	case sb.Out != "":
		return sb.Out
	case os.Getenv(finding.OutEnv) != "":
		return os.Getenv(finding.OutEnv)
	}
	return finding.DefaultDir(sb.name())
}

// pipeline is the finding pipeline for sb.
func (sb Sandbox) pipeline() *finding.Pipeline {
	lim := minimize.Limits{Time: sb.MinimizeTime}
	if lim.Time <= 0 {
		lim.Time = 10 * time.Second
	}
	p := &finding.Pipeline{Factory: sb.Factory, SUT: sb.name(), Timeout: sb.Timeout, Limits: lim, Class: campaign.MinimizedClass}
	p.Command = sb.replayCommand
	return p
}

// replayCommand is the command that replays the reproducer at path. go
// test runs in the package's directory, while whoever pastes the command
// may be anywhere (the module root, after go test ./...), so its words
// work from any directory: path absolute, Command run from the module
// root, the go test form run in the package's directory.
func (sb Sandbox) replayCommand(path string) string {
	wd, _ := os.Getwd() // "" when unknown: the command then stays as written
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if sb.Command != "" {
		return fmt.Sprintf("%s replay --sut %s %s", fromModuleRoot(sb.Command, wd), finding.QuoteArg(sb.name()), finding.QuoteArg(path))
	}
	test := sb.ReplayTest
	if test == "" {
		test = "TestCorpus"
	}
	return fmt.Sprintf("%s=%s %s test -run %s .", ReplayEnv, finding.QuoteArg(path), goIn(wd), finding.QuoteArg("^"+test+"$"))
}

// fromModuleRoot returns command, written to run from the root of the
// module that holds dir, in words that run it from anywhere: "go ..."
// runs in the root (go -C ROOT ...), and a first word that is a relative
// path (./bin/mine-sbxfuzz) becomes absolute. Without a module root, or
// with a command already given a directory, it returns command as it is.
func fromModuleRoot(command, dir string) string {
	root, ok := moduleRoot(dir)
	first, rest, _ := strings.Cut(strings.TrimSpace(command), " ")
	switch {
	case !ok:
		return command
	case first == "go" && !strings.HasPrefix(rest, "-C"):
		return strings.TrimSpace(goIn(root) + " " + rest)
	case !filepath.IsAbs(first) && strings.ContainsAny(first, `/\`):
		return strings.TrimSpace(finding.QuoteArg(filepath.Join(root, first)) + " " + rest)
	}
	return command
}

// goIn is the go command run in dir, or plain "go" when dir is "".
func goIn(dir string) string {
	if dir == "" {
		return "go"
	}
	return "go -C " + finding.QuoteArg(dir)
}

// moduleRoot returns the nearest directory at or above dir that holds a
// go.mod file.
func moduleRoot(dir string) (string, bool) {
	for dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}

// check judges sc on sb, with the hang bound.
func (sb Sandbox) check(sc *scenario.Scenario) ([]oracle.Finding, error) {
	return oracle.Check(sb.Factory, sc, nil, oracle.Options{Timeout: sb.Timeout})
}

// Failure is a scenario on which the sandbox violated an invariant, with
// its minimized reproducer.
type Failure struct {
	Sandbox     string           // the sandbox's name
	Findings    []oracle.Finding // on the scenario as found
	Invariant   oracle.ID        // the one the reproducer keeps violated: the first found
	Reproducer  *scenario.Scenario
	OriginalOps int    // how many ops the scenario had as found
	File        string // where the reproducer was saved; "" if it could not be
	SaveErr     error  // why it could not be saved
	Replay      string // the command that replays it
}

// Error describes the failure: the violations in plain words, the
// minimized reproducer as .sbx text, where it was saved, and the command
// that replays it.
func (f *Failure) Error() string {
	var b []byte
	b = fmt.Appendf(b, "sbxfuzz: %s violates %d invariant(s):\n", f.Sandbox, len(f.Findings))
	for _, fd := range f.Findings {
		b = fmt.Appendf(b, "  %s\n", fd)
	}
	b = fmt.Appendf(b, "\nminimized reproducer for %s (%d ops, from %d; paste it into testdata/ to keep it as a regression test):\n\n",
		f.Invariant, len(f.Reproducer.Steps), f.OriginalOps)
	b = append(b, f.Reproducer.Format()...)
	if f.File != "" {
		b = fmt.Appendf(b, "\nsaved as %s\n", f.File)
	} else {
		b = fmt.Appendf(b, "\nnot saved: %v\n", f.SaveErr)
	}
	b = fmt.Appendf(b, "replay it: %s\n", f.Replay)
	return string(b)
}

// fail minimizes the first of fs on sc and saves the reproducer.
func (sb Sandbox) fail(sc *scenario.Scenario, fs []oracle.Finding, origin string) *Failure {
	p := sb.pipeline()
	m := p.Process(sc, fs[0], origin)
	out := &Failure{Sandbox: sb.name(), Findings: fs, Invariant: m.Invariant, Reproducer: m.Minimized, OriginalOps: len(sc.Steps)}
	out.File, out.SaveErr = p.Write(sb.out(), m)
	path := out.File
	if path == "" {
		path = filepath.Join(sb.out(), m.FileName())
		p.Annotate(m, path)
	}
	out.Replay = p.Command(path)
	return out
}
