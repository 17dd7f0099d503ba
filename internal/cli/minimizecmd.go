package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

func runMinimize(e *env, args []string) int {
	fs := newFlags(e, "minimize", "[--sut NAME [--profile NAME|FILE]] [--timeout D] [--start-timeout D] [--tree-dir DIR] [--invariant ID] [-w] FILE", `
Shrink a failing scenario while the oracle still finds the same invariant
violated on the sandbox under test (--invariant, else the one named by FILE's
"# finding:" header, else the first one found): drop the ops after the
failure, remove ops from the back, remove grant and world entries, shorten
arguments, within 20,000 candidates and 60 s. The result is
1-minimal unless a limit cut it short, with the results of the oracle's model
of docs/SPEC.md §5 written in as expectations. It is printed in canonical
form, or written back atomically with -w. Exit 1 when the scenario fails (and
so was minimized), 0 when it passes and there is nothing to do, 3 on SIGINT,
SIGTERM or SIGHUP. A real sandbox (osroot, mcp:, proxy:) is asked what run would ask
it: the ops its adapter cannot express are left out first.`)
	sutName := fs.String("sut", sut.Reference, sutHelp)
	treeDirFlag(e, fs)
	inv := fs.String("invariant", "", "the invariant to keep violated (default: the one FILE's '# finding:' header names, else the first one found)")
	write := fs.Bool("w", false, "rewrite FILE with the minimized scenario")
	timeout := timeoutFlag(e, fs)
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
	target, err := e.target(*sutName)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	name := fs.Arg(0)
	sc, err := loadFor(target, name)
	if err != nil {
		return printError(e, err)
	}
	if _, err := judge.NewCase(sc); err != nil {
		return errorf(e, "%s: %v", name, err)
	}
	if *inv != "" {
		if _, ok := judge.ParseID(*inv); !ok {
			return errorf(e, "--invariant: unknown invariant %q", *inv)
		}
	}
	// A campaign's file is the finding of the invariant its name and
	// header give: the first one the oracle finds may be another (a fetch
	// both unconfined and internal).
	headed := ""
	if id, ok := finding.NamedInvariant(sc); ok && *inv == "" {
		if _, known := judge.ParseID(id); known {
			headed = id
		}
	}
	// What the sandbox is asked is what a campaign would ask it: the
	// scenario narrowed by its adapter, and every candidate too.
	n := target.Narrow(sc)
	if n.Scenario == nil {
		fmt.Fprintf(e.stderr, "sbxfuzz minimize: %s: %s can express none of it: nothing to minimize\n", inert(name), *sutName)
		return ExitOK
	}
	if _, err := judge.NewCase(n.Scenario); err != nil {
		return errorf(e, "%s: narrowed for %s: %v", name, *sutName, err)
	}
	factory, end, err := startSession(e, target)
	if err != nil {
		return errorf(e, "--sut: %v", err)
	}
	defer end()
	findings, _ := oracle.Check(factory, n.Scenario, nil, e.oracleOptions()) // the grant was validated above
	// pick returns the first finding of id, or of any for "".
	pick := func(id string) *oracle.Finding {
		for i := range findings {
			if id == "" || findings[i].Invariant.String() == id {
				return &findings[i]
			}
		}
		return nil
	}
	var violated *oracle.Finding
	switch {
	case *inv != "":
		violated = pick(*inv)
	case headed != "":
		if violated = pick(headed); violated == nil {
			// A file partly fixed since: what still fails is no pass.
			if violated = pick(""); violated != nil && *write {
				// Rewritten, a regression file of one invariant would
				// become another's: only on request.
				fmt.Fprintf(e.stderr, "sbxfuzz minimize: %s: %s, which its header names, fails no more, but %s does; not rewritten (--invariant %s minimizes for it)\n", inert(name), headed, violated.Invariant, violated.Invariant)
				return ExitFinding
			}
			if violated != nil {
				fmt.Fprintf(e.stderr, "sbxfuzz minimize: %s: %s, which its header names, fails no more; minimizing for %s, the first found\n", inert(name), headed, violated.Invariant)
			}
		}
	default:
		violated = pick("")
	}
	if violated == nil {
		fmt.Fprintf(e.stderr, "sbxfuzz minimize: %s: no violation to minimize on %s\n", inert(name), *sutName)
		return ExitOK
	}
	p := &finding.Pipeline{Factory: factory, Start: target.Start, SUT: *sutName, Flags: target.Flags, Program: e.program, Timeout: *timeout, StartTimeout: e.startTimeout, Adapt: target.Adapt,
		// A campaign's finding whose header names its cause goes on
		// shrinking to that cause, as the campaign began it; any other
		// file shrinks as far as its invariant lets it.
		Cause: campaign.KeptCause, ShrinkPastCause: !finding.NamesCause(sc), Class: campaign.MinimizedClass}
	f := p.Process(n.Scenario, *violated, "minimized from "+name)
	written := ""
	if *write {
		// Absolute, as a campaign's files name themselves: the reproduce
		// line then replays the file from any directory.
		if written, err = filepath.Abs(name); err != nil {
			written = name
		}
	}
	p.AnnotateInPlace(f, sc, len(n.Skipped), written)
	min := f.Minimized
	if f.Flaky || f.Stateful {
		fmt.Fprintf(e.stderr, "sbxfuzz minimize: %s: %s\n", inert(name), inert(f.Explanation()))
	} else {
		fmt.Fprintf(e.stderr, "sbxfuzz minimize: %s: %s: %d ops minimized to %d\n", inert(name), violated.Invariant, len(sc.Steps), len(min.Steps))
	}
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
	if f.Flaky || f.Stateful {
		return ExitOK // it did not fail again (alone): not a finding on its own
	}
	return ExitFinding
}
