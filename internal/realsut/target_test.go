package realsut

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestTarget: an Adapter's Target is the harness's, built here: it keeps
// the Adapter's name, adapter and n/a table, refuses as bad input a world
// too large for a real tree (and only such a world), and confirms hangs,
// since a real sandbox on a busy machine may be late without being wrong.
func TestTarget(t *testing.T) {
	tg := OSRoot.Target()
	if tg.Name != OSRootName || tg.Adapt == nil || len(tg.NotApplicable) != len(FSOnlyNA) || !tg.ConfirmHangs || tg.Start == nil {
		t.Fatalf("OSRoot.Target() = %+v", tg)
	}
	small := parse(t, "grant fs_read /work/\nfile /work/a x\nfs_read /work/a\n")
	if err := tg.Refuse(small); err != nil {
		t.Errorf("a world of one file is refused: %v", err)
	}
	var big strings.Builder
	big.WriteString("grant fs_read /work/\n")
	for i := range MaxTreeEntries + 1 {
		fmt.Fprintf(&big, "file /work/f%d x\n", i)
	}
	big.WriteString("fs_read /work/f0\n")
	if err := tg.Refuse(parse(t, big.String())); err == nil || !strings.Contains(err.Error(), "a real tree holds at most") {
		t.Errorf("a world of %d files: %v, want it refused", MaxTreeEntries+1, err)
	}
}

func parse(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
