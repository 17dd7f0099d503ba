package fuzzdecode

import (
	"bytes"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// FuzzDecodedRoundTrip: whatever an input decodes to, in any mode, prints
// as .sbx text that parses back to the same scenario, and that text is
// canonical. This is what sbxfuzz import relies on: the file it writes for
// a crasher must replay the scenario the crasher decoded to.
func FuzzDecodedRoundTrip(f *testing.F) {
	for _, in := range randomInputs(23, 8, 200) {
		f.Add(append([]byte{0x01}, in...))
		f.Add(append([]byte{GeneratedStart}, in...))
	}
	f.Add([]byte("# x\ngrant fs_read /work/\nfile /work/a \"\\x00\"\nfs_read /work/a => ok\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := Decode(data)
		text := sc.Format()
		back, err := scenario.Parse("decoded.sbx", text)
		if err != nil {
			t.Fatalf("the canonical text of the decoded scenario does not parse: %v\n%s", err, text)
		}
		if !back.Equal(sc) {
			t.Fatalf("the canonical text of the decoded scenario parses to another scenario:\n%s", text)
		}
		if again := back.Format(); !bytes.Equal(again, text) {
			t.Fatalf("Format is not a fixed point:\n%s---\n%s", text, again)
		}
	})
}
