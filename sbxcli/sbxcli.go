// Package sbxcli is the sbxfuzz command line as a library, so that a
// module can build it with its own sandboxes in it: every command — run,
// replay, minimize, import, report — then takes them by name with --sut.
// A team's cmd/sbxfuzz/main.go is three lines:
//
//	func main() {
//		sbxcli.Main(map[string]core.Factory{"mine": mine.New})
//	}
//
// and a reproducer that sbxtest printed replays with
//
//	go run ./cmd/sbxfuzz replay --sut mine FILE
//
// Every command the program prints — the reproduce line of each finding,
// a report's, the help's — names the program itself, not the stock
// sbxfuzz, which does not know its sandboxes: by default as it was started
// (its base name when PATH finds the same file under it, else its path;
// "go run PACKAGE" when go run built it), or in the words of the Command
// option:
//
//	sbxcli.Main(sandboxes, sbxcli.Command("go run ./cmd/sbxfuzz"))
//
// 'mutants --sut A,B,...' grades the registered sandboxes as the mutants
// are graded: a team that registers defect variants of its sandbox gets
// their kill table.
//
// The package links neither testing nor rapid.
package sbxcli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/cli"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// Main runs the command line on os.Args and exits with its status (SPEC
// §11: 0 nothing wrong, 1 a finding, 2 bad usage or input, 3 interrupted by
// a signal). sandboxes are the factories --sut may name, besides the
// built-in ones — "reference", "osroot", and the names that begin with
// "mutant:", "exec:", "mcp:" or "proxy:" — which no name may shadow (a name that
// does is refused, exit 2); each must be safe to call from several
// goroutines at once, since a campaign runs one worker per core.
func Main(sandboxes map[string]core.Factory, opts ...Option) {
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, sandboxes, opts...))
}

// An Option changes how Main and Run present the program.
type Option struct {
	command string
}

// Command is the Option that names the program, in the commands it
// prints, by words: what a user types to run it, from where it is meant
// to be run — "mysbx" for a program on PATH, "go run ./cmd/mysbx" from
// its module's root. Without it, the program is named as it was started
// (see the package documentation).
func Command(words string) Option { return Option{command: words} }

// Run is Main without the exit: it runs the command line with args
// (without the program name) and returns the exit status.
func Run(args []string, stdout, stderr io.Writer, sandboxes map[string]core.Factory, opts ...Option) int {
	names := make([]string, 0, len(sandboxes))
	for name := range sandboxes {
		names = append(names, name)
	}
	sort.Strings(names) // the first refused name, whatever the map's order
	for _, name := range names {
		if builtin(name) {
			fmt.Fprintf(stderr, "sbxfuzz: cannot register a sandbox as %q: the name is empty or taken by a built-in one\n", name)
			return cli.ExitUsage
		}
	}
	extra := make([]sut.Target, len(names))
	for i, name := range names {
		extra[i] = sut.Static(name, sandboxes[name])
	}
	return cli.MainAs(invocation(opts), args, stdout, stderr, os.Getenv, extra...)
}

// invocation is the words that run the program: the last Command
// option's, else those os.Args[0] says.
func invocation(opts []Option) string {
	words := ""
	for _, o := range opts {
		if strings.TrimSpace(o.command) != "" {
			words = strings.TrimSpace(o.command)
		}
	}
	if words != "" {
		return words
	}
	self, _ := os.Executable()
	return startedAs(os.Args[0], self, exec.LookPath, goRunPackage)
}

// startedAs names a program started as arg0, whose executable is self
// ("" if unknown): "go run PACKAGE" when go run built it in a temporary
// directory that is gone once it exits; its base name when lookPath finds
// the same file under that name; else its absolute path.
func startedAs(arg0, self string, lookPath func(string) (string, error), goRun func(self string) string) string {
	if self != "" {
		if cmd := goRun(self); cmd != "" {
			return cmd
		}
	}
	base := filepath.Base(arg0)
	if found, err := lookPath(base); err == nil && sameFile(found, arg0, self) {
		return finding.QuoteArg(base)
	}
	if self != "" {
		return finding.QuoteArg(self)
	}
	if abs, err := filepath.Abs(arg0); err == nil {
		return finding.QuoteArg(abs)
	}
	return finding.QuoteArg(arg0)
}

// sameFile reports whether found is the program: the file self names, or
// arg0 when self is unknown.
func sameFile(found, arg0, self string) bool {
	want := self
	if want == "" {
		want = arg0
	}
	a, err := os.Stat(found)
	if err != nil {
		return false
	}
	b, err := os.Stat(want)
	return err == nil && os.SameFile(a, b)
}

// goRunPackage returns "go run PACKAGE" when self is an executable go run
// built (GOTMPDIR/go-build.../exe/NAME), with the main package's path
// from its build information, else "".
func goRunPackage(self string) string {
	dir := filepath.Dir(self)
	if filepath.Base(dir) != "exe" || !strings.Contains(filepath.ToSlash(dir), "/go-build") {
		return ""
	}
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Path == "" || info.Path == "command-line-arguments" {
		return ""
	}
	return "go run " + finding.QuoteArg(info.Path)
}

// builtin reports whether --sut name would resolve to a built-in sandbox
// (package sut), or is empty.
func builtin(name string) bool {
	switch name {
	case "", sut.Reference, sut.OSRoot:
		return true
	}
	for _, prefix := range []string{sut.MutantPrefix, sut.ExecPrefix, realsut.MCPPrefix, proxysut.Prefix} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
