package cli

import (
	"fmt"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

func runMutants(e *env, args []string) int {
	fs := newFlags(e, "mutants", "[--seed N] [--checks N] [--mutant NAME] [--workers W] [--format text|md|json]", `
Run a campaign against every mutant — a sandbox wrong in exactly one way real
sandboxes have been wrong — until its first finding or --checks checks, each
from the same seed and single-threaded (mutants run in parallel), minimize the
finding, and print the kill table: mutant, killed, the invariant that caught
it, checks and seconds to kill, and the minimized reproducer's length in ops.
Exit 1 if any mutant survives, 3 if SIGINT, SIGTERM or SIGHUP cut the run short.`)
	seed := fs.Uint64("seed", 1, "campaign seed")
	checks := fs.Int("checks", campaign.DefaultChecks, "checks per mutant before it is declared a survivor")
	one := fs.String("mutant", "", "run only this mutant")
	workers := fs.Int("workers", 0, "mutants run at once (default: all cores)")
	format := formatFlag(fs, "text", "md", "json")
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if !checkFormat(e, *format, "text", "md", "json") {
		return ExitUsage
	}
	if fs.NArg() > 0 {
		return errorf(e, "mutants: unexpected argument %q", fs.Arg(0))
	}
	if *checks <= 0 || *workers < 0 {
		return errorf(e, "mutants: --checks must be positive and --workers not negative")
	}
	ms := mutants.All()
	if *one != "" {
		m, ok := mutants.Lookup(*one)
		if !ok {
			return errorf(e, "--mutant: unknown mutant %q (known: %s)", *one, strings.Join(mutants.Names(), ", "))
		}
		ms = []mutants.Mutant{m}
	}
	ctx, _, stop := interruptible(e)
	defer stop()
	kills := campaign.KillMutants(ctx, ms, *seed, *checks, *workers)
	if err := reports.WriteKills(e.stdout, reports.Format(*format), kills); err != nil {
		return errorf(e, "%v", err)
	}
	survivors := 0
	for _, k := range kills {
		if !k.Killed {
			survivors++
		}
	}
	fmt.Fprintf(e.stderr, "sbxfuzz mutants: seed %d: %d of %d killed\n", *seed, len(kills)-survivors, len(kills))
	if ctx.Err() != nil {
		return ExitInterrupted // survivors of an interrupted run prove nothing
	}
	if survivors > 0 {
		return ExitFinding
	}
	return ExitOK
}
