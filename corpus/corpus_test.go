// Package corpus holds the committed scenarios: the worked trace, one file
// per attack class, the regressions real sandboxes got wrong, one killer per
// mutant. Its test replays every one of them on the
// reference on every go test run, and each killer on its mutant too.
package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// scenarios returns every .sbx below this directory, failing when there is
// none: an empty glob must not pass silently.
func scenarios(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "findings" {
			return fs.SkipDir // ignored by git: a user's findings, not the corpus
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sbx") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no .sbx scenarios found under corpus/")
	}
	return files
}

func parse(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestCorpusReplays replays every scenario on the reference sandbox: every
// expectation must hold and the oracle must find nothing.
func TestCorpusReplays(t *testing.T) {
	for _, name := range scenarios(t) {
		t.Run(name, func(t *testing.T) {
			out, err := replay.Run(name, parse(t, name), core.ReferenceFactory, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range out.Unmet() {
				t.Errorf("%s:%d: step %d: %s: %s", name, s.Line, s.Step, replayOp(s), s.Unmet)
			}
			for _, f := range out.Findings {
				t.Errorf("%s: %s", name, f)
			}
		})
	}
}

func replayOp(s replay.Step) string { return strings.TrimSpace(opText(s.Op)) }

func opText(op core.Op) string {
	sc := scenario.New()
	sc.Steps = []scenario.Step{{Op: op}}
	return string(sc.Format())
}

// TestEveryClassHasAScenario wants classes/<id>.sbx for every attack class.
func TestEveryClassHasAScenario(t *testing.T) {
	for _, c := range attack.All() {
		name := filepath.Join("classes", c.String()+".sbx")
		if _, err := os.Stat(name); err != nil {
			t.Errorf("attack class %s has no scenario: %v", c, err)
			continue
		}
		if sc := parse(t, name); len(sc.Steps) == 0 {
			t.Errorf("%s has no ops", name)
		}
	}
}

// TestEveryMutantHasAKiller wants mutants/<name>.sbx for every registered
// mutant, and no killer for a mutant that is not registered.
func TestEveryMutantHasAKiller(t *testing.T) {
	names := mutants.Names()
	if len(names) == 0 {
		t.Fatal("no mutants are registered")
	}
	for _, name := range names {
		if _, err := os.Stat(killerFile(name)); err != nil {
			t.Errorf("mutant %s has no killer: %v", name, err)
		}
	}
	for _, file := range killerFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".sbx")
		if !slices.Contains(names, name) {
			t.Errorf("%s names no registered mutant (known: %s)", file, strings.Join(names, ", "))
		}
	}
}

// killedBy is the invariant each killer is written to trip on its mutant:
// an unmet expectation alone would catch a mutant the oracle misses, so
// TestKillersKill wants this finding among the others.
var killedBy = map[string]oracle.ID{
	"act-then-check-write":    oracle.NoEffectOnDenial,
	"charge-after-dispatch":   oracle.ChargeBeforeDispatch,
	"deny-list-egress":        oracle.Confinement,
	"fetch-then-check":        oracle.NoEffectOnDenial,
	"halt-gate-charges":       oracle.HaltLatched,
	"leaky-grant":             oracle.GrantImmutable,
	"lookup-before-allowlist": oracle.NoEffectOnDenial,
	"machine-clock":           oracle.VerdictMatchesModel,
	"malformed-passthrough":   oracle.VerdictMatchesModel,
	"no-belt":                 oracle.Confinement,
	"no-boundary":             oracle.Confinement,
	"no-internal-check":       oracle.NoInternalEgress,
	"no-latch":                oracle.HaltLatched,
	"off-by-one-ops":          oracle.VerdictMatchesModel,
	"output-uncharged-fetch":  oracle.OutputBounded,
	"raw-prefix":              oracle.Confinement,
	"read-then-check":         oracle.NoEffectOnDenial,
	"resolve-twice":           oracle.NoInternalEgress,
	"substring-dotdot":        oracle.VerdictMatchesModel,
	"zero-means-unlimited":    oracle.ChargeBeforeDispatch,
	// Links (SPEC §13). confinement judges the path a read or a write
	// really reached, links followed, so it sees through the journal's
	// "read /work/ln" to the file outside.
	"no-realpath":           oracle.Confinement,
	"realpath-before-check": oracle.NoEffectOnDenial,
	"unresolved-write":      oracle.Confinement,
	"realpath-unchecked":    oracle.Confinement,
	"resolve-parent-only":   oracle.Confinement,
	// The dimension mutants (Mutant.Dimension): each killer is one point of
	// its dimension, an edge where there is one.
	"internal-string-prefixes": oracle.NoInternalEgress,
	"v6-range-masks":           oracle.NoInternalEgress,
	"wall-before-ops":          oracle.ChargeBeforeDispatch,
	"output-in-runes":          oracle.VerdictMatchesModel,
	"ignores-clock-overflow":   oracle.VerdictMatchesModel,
	"off-by-one-output":        oracle.VerdictMatchesModel,
	"budget-plus-one-overflow": oracle.VerdictMatchesModel,
	"root-itself-denied":       oracle.VerdictMatchesModel,
	"host-case-fold":           oracle.Confinement,
	"host-final-dots":          oracle.Confinement,
	// SPEC §6's embedding forms, §13's links at a root and in a later one.
	"nat64-prefix-32":         oracle.NoInternalEgress,
	"nat64-local-use-public":  oracle.NoInternalEgress,
	"no-6to4-unmap":           oracle.NoInternalEgress,
	"no-compatible-unmap":     oracle.NoInternalEgress,
	"roots-resolved-at-start": oracle.Confinement,
	"later-roots-lexical":     oracle.Confinement,
	"dotless-names-trusted":   oracle.NoInternalEgress,
	// Spellings a check normalizes and the effect takes as written.
	"win-trim-check":       oracle.Confinement,
	"query-stripped-check": oracle.Confinement,
	"first-line-check":     oracle.Confinement,
	"truncated-belt":       oracle.Confinement,
	// Egress shapes: a Teredo address carrying a public client, zoned
	// literals, hosts a URL parser respells.
	"teredo-carried":       oracle.NoInternalEgress,
	"zone-blinds-prefixes": oracle.NoInternalEgress,
	"host-percent-decoded": oracle.VerdictMatchesModel,
	"host-idna-encoded":    oracle.VerdictMatchesModel,
	// Tool names respelled before the grant check, kinds taken for the
	// four, a UTF-8 check without its bound.
	"tool-unique-prefix":      oracle.VerdictMatchesModel,
	"tool-namespace-stripped": oracle.VerdictMatchesModel,
	"tool-call-syntax":        oracle.VerdictMatchesModel,
	"tool-width-folded":       oracle.VerdictMatchesModel,
	"tool-percent-decoded":    oracle.VerdictMatchesModel,
	"kind-aliases":            oracle.VerdictMatchesModel,
	"utf8-above-max":          oracle.VerdictMatchesModel,
	"modified-utf8":           oracle.VerdictMatchesModel,
	// Step 3's order: the kind before the arguments.
	"malformed-before-unknown": oracle.VerdictMatchesModel,
}

// TestKillersKill replays mutants/<name>.sbx on mutant name: it must fail
// with a finding of the invariant killedBy names (unmet expectations may
// come with it). (TestCorpusReplays already requires that the reference
// passes it.)
func TestKillersKill(t *testing.T) {
	for _, file := range killerFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".sbx")
		m, ok := mutants.Lookup(name)
		if !ok {
			continue // TestEveryMutantHasAKiller reports it
		}
		t.Run(name, func(t *testing.T) {
			sc := parse(t, file)
			if want := "kills: " + name; len(sc.Comment) < 2 || sc.Comment[0] != want {
				t.Errorf("%s: the header comment must be %q and a sentence why, got %q", file, "# "+want, sc.Comment)
			}
			out, err := replay.Run(file, sc, m.Factory, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !out.Failed() {
				t.Errorf("%s: mutant %s survived its killer: every expectation met, no finding", file, name)
				return
			}
			want, ok := killedBy[name]
			if !ok {
				t.Fatalf("mutant %s has no entry in killedBy: which invariant is its killer written to trip?", name)
			}
			if !slices.ContainsFunc(out.Findings, func(f oracle.Finding) bool { return f.Invariant == want }) {
				t.Errorf("%s: mutant %s is killed, but not by %s", file, name, want)
			}
			for _, s := range out.Unmet() {
				t.Logf("%s:%d: step %d: %s: %s", file, s.Line, s.Step, replayOp(s), s.Unmet)
			}
			for _, f := range out.Findings {
				t.Logf("%s", f)
			}
		})
	}
}

func killerFile(name string) string { return filepath.Join("mutants", name+".sbx") }

func killerFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("mutants", "*.sbx"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}
