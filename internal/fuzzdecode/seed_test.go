package fuzzdecode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestTextSeedBOM: a scenario file that starts with a byte-order mark,
// which scenario.Parse ignores there, is the same ModeText input as the
// file without it. Behind the seed's comment line the mark would be the
// start of the first token: a grant line read as an op.
func TestTextSeedBOM(t *testing.T) {
	text := []byte("grant fs_read /w/\n\nfs_read /w/a => ok\n")
	want, err := scenario.Parse("bom.sbx", text)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range [][]byte{TextSeed("bom.sbx", text), TextSeed("bom.sbx", append([]byte("\ufeff"), text...))} {
		d := DecodeLabelled(seed)
		if d.Mode != ModeText {
			t.Fatalf("%q decodes in %s mode", seed, d.Mode)
		}
		if diff := cmp.Diff(want.Grant, d.Scenario.Grant, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q: grant mismatch (-parsed +decoded):\n%s", seed, diff)
		}
		if diff := cmp.Diff(want.Ops(), d.Scenario.Ops(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q: ops mismatch (-parsed +decoded):\n%s", seed, diff)
		}
	}
}
