package sbxtest

import (
	"testing"

	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/rapidsrc"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
	"pgregory.net/rapid"
)

// Scenarios is sbxfuzz's generator of hostile scenarios as a rapid
// generator: every attack class of SPEC §9, grants and worlds shaped to
// make violations observable, budget edges. Failing scenarios shrink.
func Scenarios() *rapid.Generator[*scenario.Scenario] {
	return rapid.Custom(func(t *rapid.T) *scenario.Scenario { return generators.Generate(rapidsrc.New(t)) })
}

// Property checks with rapid that every scenario Scenarios draws passes
// every invariant on sb (100 scenarios by default; -rapid.checks=N for
// more). rapid shrinks a failure; Property then minimizes the shrunk
// scenario further and prints it as a reproducer.
func Property(t *testing.T, sb Sandbox) {
	t.Helper()
	var last *scenario.Scenario
	var lastFound []oracle.Finding
	// rapid ends a failed test with FailNow, after it ran the shrunk
	// scenario once more: the last failing scenario seen is the shrunk one.
	t.Cleanup(func() {
		if last != nil && t.Failed() {
			t.Error(sb.fail(last, lastFound, "a rapid property, shrunk"))
		}
	})
	rapid.Check(t, func(rt *rapid.T) {
		sc := Scenarios().Draw(rt, "scenario")
		fs, err := sb.check(sc)
		if err != nil {
			rt.Fatalf("generated an invalid grant: %v", err)
		}
		if len(fs) > 0 {
			last, lastFound = sc, fs
			rt.Fatalf("%s violates %s", sb.name(), fs[0])
		}
	})
}

// PropertyOf is the property Property checks, for rapid.MakeFuzz (which
// does not shrink: the failure it reports is minimized here).
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
