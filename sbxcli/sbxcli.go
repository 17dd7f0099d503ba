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
// The package links neither testing nor rapid.
package sbxcli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/cli"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// Main runs the command line on os.Args and exits with its status (SPEC
// §11: 0 nothing wrong, 1 a finding, 2 bad usage or input, 3 interrupted by
// a signal). sandboxes are the factories --sut may name, besides the
// built-in ones — "reference", "osroot", and the names that begin with
// "mutant:", "exec:" or "mcp:" — which no name may shadow; each must be
// safe to call from several goroutines at once, since a campaign runs one
// worker per core.
func Main(sandboxes map[string]core.Factory) {
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, sandboxes))
}

// Run is Main without the exit: it runs the command line with args
// (without the program name) and returns the exit status.
func Run(args []string, stdout, stderr io.Writer, sandboxes map[string]core.Factory) int {
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
	return cli.Main(args, stdout, stderr, os.Getenv, extra...)
}

// builtin reports whether --sut name would resolve to a built-in sandbox
// (package sut), or is empty.
func builtin(name string) bool {
	switch name {
	case "", sut.Reference, sut.OSRoot:
		return true
	}
	for _, prefix := range []string{sut.MutantPrefix, sut.ExecPrefix, realsut.MCPPrefix} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}
