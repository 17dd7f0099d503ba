package sbxtest

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/rapidsrc"
	"github.com/sbxfuzz/sbxfuzz/scenario"
	"pgregory.net/rapid"
)

// The scenarios Property draws unless the command line asks for others:
// checks 0 to 999 of seed 1, the very scenarios of a 1,000-check campaign
// (sbxfuzz run --seed 1 --checks 1000), so that the unit test catches what
// that campaign catches, and a test that passed passes again. An
// in-process sandbox is judged on them in the time a unit test may take
// (docs/go-library.md).
const (
	defaultChecks = 1000
	defaultSeed   = 1
)

// Scenarios is sbxfuzz's generator of hostile scenarios as a rapid
// generator: every attack class of SPEC §9, grants and worlds shaped to
// make violations observable, budget edges. Failing scenarios shrink.
func Scenarios() *rapid.Generator[*scenario.Scenario] {
	return rapid.Custom(func(t *rapid.T) *scenario.Scenario { return generators.Generate(rapidsrc.New(t)) })
}

// Property checks that sb passes every invariant on the scenarios a
// campaign draws: by default checks 0 to 999 of seed 1, the same on every
// run. rapid's flags ask for others: -rapid.checks=N draws N,
// -rapid.seed=S (not 0) draws those of seed S, and -short a fifth of
// them (RAPID_CHECKS and RAPID_SEED in the environment too). It stops at
// the first scenario that fails, minimizes it and fails t with the
// reproducer. It writes no rapid failure file.
func Property(t *testing.T, sb Sandbox) {
	t.Helper()
	checks, seed := propertyDraws(rapidSetting, testing.Short())
	if err := checkProperty(sb, checks, seed); err != nil {
		t.Fatal(err)
	}
	t.Logf("sbxtest.Property: %s passed %d scenarios of seed %d", sb.name(), checks, seed)
}

// checkProperty judges sb on checks 0 to checks-1 of seed, as a campaign
// of that seed draws them, and returns the first failure, minimized.
func checkProperty(sb Sandbox, checks int, seed uint64) error {
	g := generators.NewGenerator()
	for i := range checks {
		sc := g.Generate(generators.NewSource(seed, uint64(i)))
		fs, err := sb.check(sc)
		if err != nil {
			return fmt.Errorf("sbxtest.Property: check %d of seed %d: generated an invalid grant: %v", i, seed, err)
		}
		if len(fs) > 0 {
			origin := fmt.Sprintf("seed %d, check %d", seed, i)
			return fmt.Errorf("sbxtest.Property: check %d of seed %d failed (-rapid.seed=%d draws them again):\n%w",
				i, seed, seed, sb.fail(sc, fs, origin))
		}
	}
	return nil
}

// propertyDraws is how many scenarios Property draws and from which seed:
// the defaults, unless setting reports rapid's flags set; under -short a
// fifth of the checks, as rapid does.
func propertyDraws(setting func(name, env string) (string, bool), short bool) (checks int, seed uint64) {
	checks, seed = defaultChecks, defaultSeed
	if v, ok := setting("rapid.checks", "RAPID_CHECKS"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			checks = n
		}
	}
	if v, ok := setting("rapid.seed", "RAPID_SEED"); ok {
		if s, err := strconv.ParseUint(v, 10, 64); err == nil && s != 0 {
			seed = s
		}
	}
	if short {
		checks = max(1, checks/5)
	}
	return checks, seed
}

// rapidSetting returns the value of rapid's flag name when the command
// line set it or rapid read its default from env; otherwise the value is
// rapid's own default, which Property does not take.
func rapidSetting(name, env string) (string, bool) {
	f := flag.Lookup(name)
	if f == nil {
		return "", false
	}
	set := false
	flag.Visit(func(g *flag.Flag) { set = set || g.Name == name })
	if _, ok := os.LookupEnv(env); ok {
		set = true
	}
	return f.Value.String(), set
}

// PropertyOf is Property's check as a rapid property over Scenarios, for
// rapid.MakeFuzz (which does not shrink: the failure it reports is
// minimized here).
func PropertyOf(sb Sandbox) func(*rapid.T) {
	return func(rt *rapid.T) {
		sc := Scenarios().Draw(rt, "scenario")
		fs, err := sb.check(sc)
		if err != nil {
			rt.Fatalf("generated an invalid grant: %v", err)
		}
		if len(fs) > 0 {
			rt.Fatalf("%v", sb.fail(sc, fs, "a rapid property under go test -fuzz"))
		}
	}
}
