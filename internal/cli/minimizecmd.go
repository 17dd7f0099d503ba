package cli

import (
	"fmt"
	"os"

	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

func runMinimize(e *env, args []string) int {
	fs := newFlags(e, "minimize", "[--sut NAME] [--invariant ID] [-w] FILE", `
Shrink a failing scenario while the oracle still finds the same invariant
violated on the sandbox under test (the first one found, or --invariant): drop
the ops after the failure, remove ops from the back, remove grant and world
entries, shorten arguments, within 20,000 candidates and 60 s. The result is
1-minimal unless a limit cut it short, with the results of the oracle's model
of SPEC §5 written in as expectations. It is printed in canonical form, or written back atomically with -w. Exit 1 when the scenario
fails (and so was minimized), 0 when it passes and there is nothing to do.`)
	sutName := fs.String("sut", sut.Reference, sutHelp)
	inv := fs.String("invariant", "", "the invariant to keep violated (default: the first one found)")
	write := fs.Bool("w", false, "rewrite FILE with the minimized scenario")
	timeout := timeoutFlag(fs)
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if !checkTimeout(e, *timeout) {
		return ExitUsage
	}
	if fs.NArg() != 1 {
		return errorf(e, "minimize: want exactly one FILE (try 'sbxfuzz minimize -h')")
	}
	if *write {
		if err := fsutil.CheckOutFile(fs.Arg(0)); err != nil {
			return errorf(e, "-w: %v", err)
		}
	}
	factory, end, err := e.session(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	defer end()
	name := fs.Arg(0)
	sc, err := load(name)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return ExitUsage
	}
	c, err := oracle.NewCase(sc)
	if err != nil {
		return errorf(e, "%s: %v", name, err)
	}
	if *inv != "" {
		if _, ok := oracle.ParseID(*inv); !ok {
			return errorf(e, "--invariant: unknown invariant %q", *inv)
		}
	}
	findings := oracle.Check(factory, c, new(oracle.Coverage), oracle.Options{Timeout: *timeout})
	var target *oracle.Finding
	for i := range findings {
		if *inv == "" || findings[i].Invariant.String() == *inv {
			target = &findings[i]
			break
		}
	}
	if target == nil {
		fmt.Fprintf(e.stderr, "%s: no violation to minimize on %s\n", name, *sutName)
		return ExitOK
	}
	p := &finding.Pipeline{Factory: factory, SUT: *sutName, Timeout: *timeout}
	f := p.Process(sc, *target, "minimized from "+name)
	min := f.Minimized
	min.Comment = append(sc.Comment, fmt.Sprintf("minimized for %s on %s: %d ops to %d (%d candidates tried)",
		target.Invariant, *sutName, len(sc.Steps), len(min.Steps), f.Stats.Calls))
	fmt.Fprintf(e.stderr, "%s: %s: %d ops minimized to %d\n", name, target.Invariant, len(sc.Steps), len(min.Steps))
	if *write {
		st, err := os.Stat(name)
		if err == nil {
			err = fsutil.WriteAtomic(name, min.Format(), st.Mode().Perm())
		}
		if err != nil {
			return errorf(e, "%v", err)
		}
	} else {
		e.stdout.Write(min.Format())
	}
	return ExitFinding
}
