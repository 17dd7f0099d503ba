package realsut

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestRunDirLivesWithTheFactory: a session whose end function its caller
// dropped (a fuzz target keeps only the factory, for the life of its
// process) keeps its run directory's lock as long as the factory lives:
// another run starting beside it (go test -fuzz's next worker process)
// sweeps only the directories of runs that are gone, not this one, whose
// trees the factory still builds.
func TestRunDirLivesWithTheFactory(t *testing.T) {
	dir := t.TempDir()
	a := OSRoot
	a.TreeDir = dir
	f, _, err := a.Start() // the end function dropped, as a fuzz target drops it
	if err != nil {
		t.Fatal(err)
	}
	for range 20 { // let a lock file whose owner is unreachable be finalized and closed
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	other, err := realfs.OpenRunDir(dir) // sweeps the dead runs' directories
	if err != nil {
		t.Fatal(err)
	}
	defer other.Remove()
	fs := checkOn(t, f, "grant fs_read /work/\nfile /work/a.txt hello\n\nfs_read /work/a.txt\n")
	if len(fs) != 0 {
		t.Errorf("after another run started beside the session: %v; want no finding", fs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d run directories; want the session's and the other run's", len(entries))
	}
	runtime.KeepAlive(f)
}

// checkOn judges the scenario src on the sandboxes f builds.
func checkOn(t *testing.T, f core.Factory, src string) []oracle.Finding {
	t.Helper()
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Fatal(err)
	}
	return judge.Check(f, c, nil, judge.Options{Timeout: 2 * time.Second})
}
