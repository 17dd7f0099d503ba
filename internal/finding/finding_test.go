package finding

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func parse(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("test.sbx", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func firstFinding(t *testing.T, f core.Factory, sc *scenario.Scenario, timeout time.Duration) oracle.Finding {
	t.Helper()
	c, err := oracle.NewCase(sc)
	if err != nil {
		t.Fatal(err)
	}
	fs := oracle.Check(f, c, new(oracle.Coverage), oracle.Options{Timeout: timeout})
	if len(fs) == 0 {
		t.Fatal("the scenario fails nothing")
	}
	return fs[0]
}

// TestPipeline: a finding is minimized, explained, given the model's
// results as expectations, annotated and written where its name says, and
// the written file fails the same way on the sandbox.
func TestPipeline(t *testing.T) {
	m, _ := mutants.Lookup("raw-prefix")
	sc := parse(t, `grant fs_read /work
grant tool echo
file /work/a hello
file /workshop/secret LEAK
fs_read /work/a
tool echo hi
fs_read /workshop/secret
fs_read /work/a
`)
	p := &Pipeline{Factory: m.Factory, SUT: "mutant:raw-prefix"}
	f := p.Process(sc, firstFinding(t, m.Factory, sc, 0), "seed 9, check 3")
	if f.Invariant != oracle.Confinement || f.Step != 3 {
		t.Fatalf("finding %s at step %d, want confinement at step 3", f.Invariant, f.Step)
	}
	if len(sc.Steps) != 4 || sc.Comment != nil {
		t.Fatalf("Process changed the scenario it was given")
	}
	want := parse(t, "grant fs_read /work\nfs_read /works => fs_read_denied\n")
	if diff := cmp.Diff(string(want.Format()), string(f.Minimized.Format())); diff != "" {
		t.Fatalf("minimized mismatch (-want +got):\n%s", diff)
	}
	dir := t.TempDir()
	path, err := p.Write(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != f.FileName() || !strings.HasPrefix(f.FileName(), "confinement-") {
		t.Fatalf("written as %s, named %s", path, f.FileName())
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"# finding: confinement\n",
		"# step 1: fs_read /works returned",
		"# sandbox: mutant:raw-prefix; seed 9, check 3; class of the violating op: unlabelled\n",
		"# minimized from 4 ops to 1 (",
		"# reproduce: sbxfuzz replay --sut mutant:raw-prefix " + filepath.ToSlash(path) + "\n",
	} {
		if !strings.Contains(string(text), line) {
			t.Errorf("the written finding lacks %q:\n%s", line, text)
		}
	}
	again := parse(t, string(text))
	if got := firstFinding(t, m.Factory, again, 0); got.Invariant != oracle.Confinement {
		t.Errorf("the written finding fails %s on the mutant, want confinement", got.Invariant)
	}
	if dirs, _ := os.ReadDir(dir); len(dirs) != 1 {
		t.Errorf("%d files in the output directory, want the finding alone (no temp file left)", len(dirs))
	}
}

// hangsOnTools is the reference, except that tool ops block until the
// sandbox is closed.
type hangsOnTools struct {
	*core.Reference
	closed chan struct{}
	once   *sync.Once
}

func (s hangsOnTools) Run(op core.Op) core.Result {
	if op.Kind == core.OpTool {
		<-s.closed
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

func (s hangsOnTools) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

// TestHangMinimizedQuickly: a hang in a long scenario, judged with a 2 s
// op timeout, minimizes to the op that hung well within a minute.
func TestHangMinimizedQuickly(t *testing.T) {
	hangs := func(g core.Grant, w core.World) (core.Sandbox, error) {
		return hangsOnTools{core.NewReference(g, w), make(chan struct{}), new(sync.Once)}, nil
	}
	var b strings.Builder
	b.WriteString("grant fs_read /work/\ngrant fs_write /work/\ngrant tool echo\nfile /work/a hello\n")
	for i := range 40 {
		if i == 25 {
			b.WriteString("tool echo hi\n")
		}
		b.WriteString("fs_read /work/a\nfs_write /work/b x\n")
	}
	sc := parse(t, b.String())
	found := firstFinding(t, hangs, sc, 2*time.Second)
	if !found.Hang || found.Step != 51 {
		t.Fatalf("finding %+v, want a hang at step 51", found)
	}
	p := &Pipeline{Factory: hangs, SUT: "hangs", Timeout: 2 * time.Second}
	start := time.Now()
	f := p.Process(sc, found, "test")
	took := time.Since(start)
	t.Logf("minimized a hang from %d ops to %d in %v (%d candidates)", len(sc.Steps), len(f.Minimized.Steps), took, f.Stats.Calls)
	if took > 60*time.Second {
		t.Errorf("minimizing the hang took %v, want at most 60 s", took)
	}
	if n := len(f.Minimized.Steps); n != 1 || f.Minimized.Steps[0].Op.Kind != core.OpTool {
		t.Errorf("minimized to:\n%s\nwant the tool op alone", f.Minimized.Format())
	}
}

// TestHangOnASlowStarter: a sandbox slower to start than the lowered
// timeout of hang candidates still minimizes to the op that hangs, not to
// a scenario that only hangs while the sandbox is built.
func TestHangOnASlowStarter(t *testing.T) {
	slow := func(g core.Grant, w core.World) (core.Sandbox, error) {
		time.Sleep(HangTimeout * 5 / 4)
		return hangsOnTools{core.NewReference(g, w), make(chan struct{}), new(sync.Once)}, nil
	}
	sc := parse(t, "grant tool echo\ngrant fs_read /work/\nfile /work/a hello\nfs_read /work/a\ntool echo hi\nfs_read /work/a\n")
	found := firstFinding(t, slow, sc, 2*time.Second)
	if !found.Hang || found.Step != 2 {
		t.Fatalf("finding %+v, want a hang at step 2", found)
	}
	f := (&Pipeline{Factory: slow, SUT: "slow", Timeout: 2 * time.Second}).Process(sc, found, "test")
	if n := len(f.Minimized.Steps); n != 1 || f.Minimized.Steps[0].Op.Kind != core.OpTool {
		t.Fatalf("minimized to:\n%s\nwant the tool op alone", f.Minimized.Format())
	}
}
