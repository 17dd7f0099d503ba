package replay

import (
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestUnmetQuotesDataCut: an unmet expectation on megabytes of data says
// so in a line, the data cut after judge.MaxQuoted bytes with its length.
func TestUnmetQuotesDataCut(t *testing.T) {
	big := strings.Repeat("y", 3<<20)
	src := "grant fs_read /work/\nbudget output 100000000\nfile /work/f " + big + "\nfs_read /work/f => ok " + strings.Repeat("z", 3<<20) + "\n"
	sc, err := scenario.Parse("big.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run("big.sbx", sc, core.ReferenceFactory, nil)
	if err != nil {
		t.Fatal(err)
	}
	unmet := out.Unmet()
	if len(unmet) != 1 {
		t.Fatalf("%d unmet expectations, want 1", len(unmet))
	}
	if u := unmet[0].Unmet; len(u) > 2048 || strings.Count(u, "(3145728 bytes in all)") != 2 {
		t.Errorf("the unmet expectation says %d bytes: %.700s", len(u), u)
	}
	if got := Describe(core.OK, "", true); got != `ok ""` {
		t.Errorf("Describe of empty data = %s", got)
	}
}
