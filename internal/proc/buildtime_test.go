//go:build unix

package proc

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// resolvingArg, as its first argument, makes the test binary a child
// serving sbxfuzz/1 over the reference built by a factory that resolves
// every root of its grant first: during sandbox/open, with world/realpath
// requests, as an MCP filesystem server resolves its allowed directories
// at start. An argument of its own, so that roles_test.go's roles stay
// as they are.
const resolvingArg = "sbxfuzz-proc-test-resolving-roots"

func init() {
	if len(os.Args) > 1 && os.Args[1] == resolvingArg {
		os.Exit(serveResolvingRoots())
	}
}

func serveResolvingRoots() int {
	f := func(g core.Grant, w core.World) (core.Sandbox, error) {
		for _, root := range slices.Concat(g.FSRead(), g.FSWrite()) {
			w.Realpath(root)
		}
		return core.NewReference(g, w), nil
	}
	if err := Serve(os.Stdin, os.Stdout, "resolving roots", f); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 2
	}
	return 0
}

// TestRootsResolvedAtOpenOverThePipe: a correct sandbox in another process
// that resolves its roots while it opens is clean on generated scenarios.
// The first run's step 1 was compared from the start of the journal, its
// build's realpaths included, and the replay's from after its build: a
// replay-deterministic finding on every scenario with a root.
func TestRootsResolvedAtOpenOverThePipe(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 20
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start, err := Sessions(shellQuote(self) + " " + resolvingArg)
	if err != nil {
		t.Fatal(err)
	}
	f, end, err := start()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	var cov oracle.Coverage
	withRoots := 0
	for i := range n {
		sc := generators.Generate(generators.NewSource(0x6f70656e, uint64(i))) // "open"
		c, err := judge.NewCase(sc)
		if err != nil {
			continue // an invalid grant opens no sandbox
		}
		if len(sc.Grant.FSRead)+len(sc.Grant.FSWrite) > 0 && len(sc.Steps) > 0 {
			withRoots++
		}
		if got := judge.Check(f, c, &cov, judge.Options{Timeout: patience}); len(got) > 0 {
			t.Fatalf("scenario %d: %.600v\n%s", i, got, sc.Format())
		}
	}
	if withRoots < n/2 {
		t.Fatalf("only %d of %d scenarios have a root and an op: the test proves little", withRoots, n)
	}
	t.Logf("%d scenarios, %d with a root and an op, %d ops", n, withRoots, cov.Ops)
}

// shellQuote quotes s as one word of a command line.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
