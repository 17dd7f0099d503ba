package fuzzdecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestDecodeEveryClass: random inputs from a seeded source, in the arena
// and generated modes alike, decode to ops of every attack class of
// SPEC §9.
func TestDecodeEveryClass(t *testing.T) {
	for _, mode := range []struct {
		name  string
		first byte
		want  Mode
	}{{"arena", 0x01, ModeArena}, {"generated", GeneratedStart, ModeGenerated}} {
		var count [attack.NumClasses]int
		for _, in := range randomInputs(7, 3000, 400) {
			d := DecodeLabelled(append([]byte{mode.first}, in...))
			if d.Mode != mode.want {
				t.Fatalf("%s: decoded in %s mode", mode.name, d.Mode)
			}
			for _, st := range d.Scenario.Steps {
				count[st.Class]++
			}
		}
		for c := attack.Class(1); c < attack.NumClasses; c++ {
			if count[c] == 0 {
				t.Errorf("%s mode: no op of class %s in 3000 random inputs", mode.name, c)
			}
		}
		t.Logf("%s mode: ops per class %v", mode.name, count[1:])
	}
}

// TestDecodeTotal: every input decodes to a scenario whose grant
// validates, of at most MaxOps ops (MaxTextOps for text) and, but for
// text, arguments of at most maxArg bytes, with one class a step, and the
// same input always to the same scenario. Some of the inputs reach each
// bound: a text of more ops than MaxTextOps, and random inputs whose
// arguments are cut.
func TestDecodeTotal(t *testing.T) {
	long := "# long\n" + strings.Repeat("fs_read /a\n", MaxTextOps+1)
	inputs := append(randomInputs(11, 2000, 600), nil, []byte{}, []byte{'#'}, []byte{0xff}, []byte("#\xff"), []byte("# x\nbudget ops -1\n"),
		[]byte(long))
	cutArgs := 0
	for i, in := range inputs {
		d := DecodeLabelled(in)
		if _, err := core.NewGrant(d.Scenario.Grant); err != nil {
			t.Fatalf("input %d (%q): invalid grant: %v", i, in, err)
		}
		limit := MaxOps
		if d.Mode == ModeText {
			limit = MaxTextOps
		}
		if n := len(d.Scenario.Steps); n > limit {
			t.Fatalf("input %d: %d ops, more than %d", i, n, limit)
		}
		for j, st := range d.Scenario.Steps {
			for _, a := range st.Op.Args {
				switch {
				case d.Mode != ModeText && len(a) > maxArg:
					t.Fatalf("input %d, op %d: an argument of %d bytes, more than %d", i, j+1, len(a), maxArg)
				case len(a) == maxArg:
					cutArgs++
				}
			}
		}
		if again := Decode(in); !again.Equal(d.Scenario) {
			t.Fatalf("input %d decodes to two scenarios", i)
		}
	}
	if d := DecodeLabelled([]byte(long)); d.Mode != ModeText || len(d.Scenario.Steps) != MaxTextOps {
		t.Errorf("a text of %d ops decodes in %s mode to %d ops, want %d", MaxTextOps+1, d.Mode, len(d.Scenario.Steps), MaxTextOps)
	}
	if cutArgs == 0 {
		t.Errorf("no argument of the random inputs was cut to %d bytes: the bound is not exercised", maxArg)
	}
}

// TestDecodeModes: the first byte picks the mode; text that does not parse,
// or whose grant is invalid, is read in the arena mode.
func TestDecodeModes(t *testing.T) {
	tests := []struct {
		in     string
		want   Mode
		reason string
	}{
		{"", ModeArena, "nothing: the first arena, no ops"},
		{"\x00abc", ModeArena, "a low first byte"},
		{"\xf7abc", ModeArena, "the last arena first byte"},
		{"\xf8abc", ModeGenerated, "the first generated first byte"},
		{"\xffabc", ModeGenerated, "the last generated first byte"},
		{"# x\nfs_read /a\n", ModeText, "a comment line, then a scenario"},
		{"#", ModeText, "a lone comment is an empty scenario"},
		{"# x\nfs_read /a\ngrant net h\n", ModeArena, "text that does not parse: a header after an op"},
		{"# x\nfs_read /a => bogus\n", ModeArena, "text that does not parse: no such kind"},
		{"# x\nfs_read \"unterminated\n", ModeArena, "a lexical error"},
	}
	for _, tt := range tests {
		if got := DecodeLabelled([]byte(tt.in)).Mode; got != tt.want {
			t.Errorf("Decode(%q) read in %s mode, want %s: %s", tt.in, got, tt.want, tt.reason)
		}
	}
}

// TestDecodeTextRoundTrip: a ModeText input decodes to the scenario its
// text parses to, expectations dropped, and the canonical text of the
// decoded scenario decodes back to it.
func TestDecodeTextRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../../corpus/*/*.sbx")
	top, _ := filepath.Glob("../../corpus/*.sbx") // worked_trace.sbx
	files = append(files, top...)
	if err != nil || len(files) == 0 || len(top) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	for _, name := range files {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		d := DecodeLabelled(TextSeed(name, text))
		if d.Mode != ModeText {
			t.Fatalf("%s: decoded in %s mode", name, d.Mode)
		}
		want, err := scenario.Parse(name, text)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range d.Scenario.Steps {
			if st.Expect != nil {
				t.Fatalf("%s: step %d kept its expectation", name, i+1)
			}
		}
		if diff := cmp.Diff(want.Ops(), d.Scenario.Ops(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%s: decoded ops mismatch (-parsed +decoded):\n%s", name, diff)
		}
		canon := d.Scenario.Format() // starts with the seed's comment line
		if back := Decode(canon); !back.Equal(d.Scenario) {
			t.Fatalf("%s: the canonical text decodes to another scenario:\n%s", name, canon)
		}
	}
}

// TestByteSource: one byte a draw up to 256 values, two above, zeros after
// the end.
func TestByteSource(t *testing.T) {
	s := &byteSource{data: "\x07\xc8\x01\x02\x09"}
	for _, tt := range []struct{ n, want int }{
		{1, 0}, {10, 7}, {256, 200}, {1000, (1<<8 | 2) % 1000}, {300, 9 << 8 % 300}, {5, 0},
	} {
		if got := s.Intn(tt.n); got != tt.want {
			t.Fatalf("Intn(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

// TestTextGrantIsBuilt: a text decoder's grant is the one core.NewGrant
// builds from the spec, whether the decoder built it or kept it from the
// input before, and it is kept exactly when the spec is the same. (A
// decoder of its own, not the pool's: under the race detector, the pool
// drops some of what it is given.)
func TestTextGrantIsBuilt(t *testing.T) {
	texts := []struct {
		text string
		kept bool // the grant of the input before is kept
	}{
		{"grant fs_read /work/\nfs_read /work/a\n", false},
		{"# a2\n\ngrant fs_read /work/\nfs_read /work/b => ok\n", true},
		{"grant fs_read /work/\ngrant tool echo\nfs_read /work/a\n", false},
		{"grant fs_read /work/\ngrant tool echo\nbudget ops 3\n", false},
		{"grant fs_write /work/\ngrant tool echo\nbudget ops 3\n", false},
		{"grant fs_write /work/\ngrant tool echo\nbudget ops 3\nfile /a b\n", true},
		{"grant fs_write /work/ /work/\ngrant tool echo\nbudget ops 3\n", false},
		{"grant fs_read /a\n", false},
		{"grant fs_read /b\n", false}, // the parser rewrote its list: the grant holds its own copy
		{"", false},
		{"budget ops 1000\n", true},
		{"budget ops 3\n", false},
	}
	var d textDecoder
	var last core.Grant
	for i, tt := range texts {
		sc, err := d.parser.Parse("t.sbx", []byte(tt.text))
		if err != nil {
			t.Fatal(err)
		}
		g, err := d.grantOf(sc.Grant)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := g.Spec(), must.Grant(sc.Grant).Spec(); !cmp.Equal(got, want) {
			t.Errorf("%q: grant %+v, core.NewGrant builds %+v", tt.text, got, want)
		}
		if kept := g == last; i > 0 && kept != tt.kept {
			t.Errorf("%q: grant kept %v, want %v", tt.text, kept, tt.kept)
		}
		last = g
	}
}
