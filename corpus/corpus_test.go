// Package corpus holds the committed scenarios: the worked trace, one file
// per attack class, the regressions real sandboxes got wrong, and minimized
// findings. Its test replays every one of them on every go test run.
package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
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
