package cli

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

func runMutants(e *env, args []string) int {
	fs := newFlags(e, "mutants", "[--seed N] [--checks N] [--mutant NAME | --sut A,B,...] [--workers W] [--format text|md|json]", `
Run a campaign against every mutant — a sandbox wrong in exactly one way real
sandboxes have been wrong — until its first finding or --checks checks, each
from the same seed and single-threaded (mutants run in parallel), minimize the
finding, and print the kill table: mutant, killed, the invariant that caught
it, checks and seconds to kill, and the minimized reproducer's length in ops.
--sut grades other sandboxes the same way, by their --sut names, separated by
commas: built-in mutants ("mutant:raw-prefix"), "exec:" commands, or the
sandboxes a program built with sbxcli registered — a team's own defect
variants of its sandbox, say, to learn what the harness catches in them. A
name with *, ? or [ is a pattern over the registered names and the mutants
("mutant:*" is every mutant; "exec:", "mcp:" and "proxy:" commands are
never patterns): --sut 'mine-*,mutant:raw-prefix' grades the registered
sandboxes whose names start with "mine-" and one mutant.
Exit 1 if any sandbox survives, 3 if SIGINT, SIGTERM or SIGHUP cut the run short.`)
	seed := fs.Uint64("seed", 1, "campaign seed")
	checks := fs.Int("checks", campaign.DefaultChecks, "checks per mutant before it is declared a survivor")
	one := fs.String("mutant", "", "run only this mutant")
	suts := fs.String("sut", "", "grade these sandboxes instead of the mutants: --sut names separated by commas, patterns allowed (see above)")
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
	if e.given["sut"] && *suts == "" {
		return errorf(e, "--sut: %v", errEmptySUT)
	}
	if len(setFlags(fs.FlagSet, []string{"mutant"})) > 0 && *one == "" {
		return errorf(e, "--mutant: an empty name (a variable left unset?); leave --mutant out to grade every mutant")
	}
	if *one != "" && *suts != "" {
		return errorf(e, "mutants: --mutant and --sut cannot be combined (--sut mutant:%s grades that mutant)", *one)
	}
	graded, err := e.gradedSandboxes(*one, *suts)
	if err != nil {
		return errorf(e, "%v", err)
	}
	ctx, _, stop := interruptible(e)
	defer stop()
	kills := campaign.KillTargets(ctx, graded, campaign.Config{Seed: *seed, Checks: *checks, Program: e.program}, *workers)
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

// gradedSandboxes are the rows of the kill table: every mutant, the one
// --mutant names, or the sandboxes --sut lists.
func (e *env) gradedSandboxes(one, suts string) ([]campaign.Graded, error) {
	if suts != "" {
		return e.listedSandboxes(suts)
	}
	ms := mutants.All()
	if one != "" {
		m, ok := mutants.Lookup(one)
		if !ok {
			return nil, fmt.Errorf("--mutant: unknown mutant %q (known: %s)", one, strings.Join(mutants.Names(), ", "))
		}
		ms = []mutants.Mutant{m}
	}
	graded := make([]campaign.Graded, len(ms))
	for i, m := range ms {
		graded[i] = campaign.Graded{Row: m.Name, RedFlag: m.RedFlag, Target: sut.Static(sut.MutantPrefix+m.Name, m.Factory)}
	}
	return graded, nil
}

// listedSandboxes resolves --sut A,B,...: each name as run --sut takes
// it, each pattern to the names it matches, in the order given, each
// sandbox once.
func (e *env) listedSandboxes(list string) ([]campaign.Graded, error) {
	var names []string
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		matched, err := e.expandSUT(item)
		if err != nil {
			return nil, err
		}
		for _, name := range matched {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	graded := make([]campaign.Graded, len(names))
	for i, name := range names {
		t, err := e.target(name)
		if err != nil {
			return nil, fmt.Errorf("--sut: %v", err)
		}
		graded[i] = campaign.Graded{Row: name, Target: t}
		if m, ok := mutants.Lookup(strings.TrimPrefix(name, sut.MutantPrefix)); ok && name == sut.MutantPrefix+m.Name {
			graded[i].RedFlag = m.RedFlag
		}
	}
	return graded, nil
}

// expandSUT returns the --sut names item stands for: itself, or, for a
// pattern, the registered names and "mutant:" names it matches, sorted.
func (e *env) expandSUT(item string) ([]string, error) {
	if item == "" {
		return nil, fmt.Errorf("--sut: an empty name in the list (names are separated by commas)")
	}
	if !strings.ContainsAny(item, "*?[") || strings.HasPrefix(item, sut.ExecPrefix) || strings.HasPrefix(item, realsut.MCPPrefix) || strings.HasPrefix(item, proxysut.Prefix) {
		return []string{item}, nil
	}
	var matched []string
	for _, name := range e.patternNames() {
		ok, err := path.Match(item, name)
		if err != nil {
			return nil, fmt.Errorf("--sut: bad pattern %q: %v", item, err)
		}
		if ok {
			matched = append(matched, name)
		}
	}
	if len(matched) == 0 {
		return nil, fmt.Errorf("--sut: %q matches no sandbox (the registered ones and the mutants: %s)", item, strings.Join(e.patternNames(), ", "))
	}
	return matched, nil
}

// patternNames are the names a --sut pattern may match, sorted: the
// sandboxes the program registered, and every mutant as "mutant:NAME".
func (e *env) patternNames() []string {
	var names []string
	for _, t := range e.extra {
		names = append(names, t.Name)
	}
	for _, m := range mutants.Names() {
		names = append(names, sut.MutantPrefix+m)
	}
	slices.Sort(names)
	return names
}
