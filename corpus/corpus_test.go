// Package corpus holds the committed scenarios: the worked trace, one file
// per attack class, the regressions real sandboxes got wrong, one killer per
// mutant, and minimized findings. Its test replays every one of them on the
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
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// scenarios returns every .sbx below this directory, failing when there is
// none: an empty glob must not pass silently.
func scenarios(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
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

// TestKillersKill replays mutants/<name>.sbx on mutant name: it must fail,
// by an unmet expectation or an oracle finding. (TestCorpusReplays already
// requires that the reference passes it.)
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
