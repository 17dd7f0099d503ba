package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/mutants"
)

func runMutants(e *env, args []string) int {
	fs := newFlags(e, "mutants", "[--seed N] [--checks N] [--mutant NAME] [--workers W] [--format text|md|json]", `
Run a campaign against every mutant — a sandbox wrong in exactly one way real
sandboxes have been wrong — until its first finding or --checks checks, each
from the same seed and single-threaded (mutants run in parallel), minimize the
finding, and print the kill table: mutant, killed, the invariant that caught
it, checks and seconds to kill, and the minimized reproducer's length in ops.
Exit 1 if any mutant survives.`)
	seed := fs.Uint64("seed", 1, "campaign seed")
	checks := fs.Int("checks", 10000, "checks per mutant before it is declared a survivor")
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	kills := campaign.KillMutants(ctx, ms, *seed, *checks, *workers)
	var err error
	switch *format {
	case "json":
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(kills)
	case "md":
		err = writeKillsMarkdown(e.stdout, kills)
	default:
		err = writeKillsText(e.stdout, kills)
	}
	if err != nil {
		return errorf(e, "%v", err)
	}
	survivors := 0
	for _, k := range kills {
		if !k.Killed {
			survivors++
		}
	}
	fmt.Fprintf(e.stderr, "sbxfuzz mutants: seed %d: %d of %d killed\n", *seed, len(kills)-survivors, len(kills))
	if survivors > 0 {
		return ExitFinding
	}
	return ExitOK
}

func killCells(k campaign.Kill) []string {
	killed, inv := "no", "-"
	if k.Killed {
		killed, inv = "yes", k.Invariant
	}
	return []string{k.Mutant, killed, inv, fmt.Sprint(k.Checks), fmt.Sprintf("%.3f", k.Seconds), fmt.Sprint(k.ReproducerOps)}
}

var killHeader = []string{"MUTANT", "KILLED", "INVARIANT", "CHECKS", "SECONDS", "REPRODUCER OPS"}

func writeKillsText(w io.Writer, kills []campaign.Kill) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(killHeader, "\t"))
	for _, k := range kills {
		fmt.Fprintln(tw, strings.Join(killCells(k), "\t"))
	}
	return tw.Flush()
}

func writeKillsMarkdown(w io.Writer, kills []campaign.Kill) error {
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.ToLower(strings.Join(killHeader, " | ")), strings.Repeat(" --- |", len(killHeader)))
	for _, k := range kills {
		cells := killCells(k)
		cells[0] = "`" + cells[0] + "`"
		if _, err := fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")); err != nil {
			return err
		}
	}
	return nil
}
