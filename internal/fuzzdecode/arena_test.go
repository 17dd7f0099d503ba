package fuzzdecode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestArenas: NumArenas small worlds with valid grants, spanning budget
// shapes: roomy ones, a tight op budget, a budget of 0, a small output
// budget, a clock that can run past the wall budget, and DNS rebinding.
func TestArenas(t *testing.T) {
	as := arenas()
	if len(as) != NumArenas {
		t.Fatalf("%d arenas, want %d", len(as), NumArenas)
	}
	var roomy, tightOps, zero, smallOutput, fastClock, rebinding int
	for i, a := range as {
		w := a.sc.World
		if n := len(w.Files) + len(w.Routes) + len(w.DNS) + len(w.ToolOutputs); n > maxArenaWorld {
			t.Errorf("arena %d: %d world entries", i, n)
		}
		if _, err := core.NewGrant(a.sc.Grant); err != nil {
			t.Errorf("arena %d: %v", i, err)
		}
		b := a.sc.Grant.Budgets
		switch {
		case b.MaxOps >= 1000 && b.MaxOutputBytes >= 1<<20:
			roomy++
		case b.MaxOps < MaxOps:
			tightOps++
		}
		if b.MaxOps == 0 || b.MaxWall == 0 || b.MaxOutputBytes == 0 {
			zero++
		}
		if b.MaxOutputBytes < 1024 {
			smallOutput++
		}
		if w.Clock.Step > 0 && b.MaxWall/w.Clock.Step < MaxOps {
			fastClock++
		}
		if len(w.DNS) > 0 {
			rebinding++
		}
	}
	t.Logf("roomy %d, tight ops %d, a zero budget %d, small output %d, fast clock %d, dns %d", roomy, tightOps, zero, smallOutput, fastClock, rebinding)
	for what, n := range map[string]int{"roomy": roomy, "tight op budget": tightOps, "zero budget": zero,
		"small output budget": smallOutput, "fast clock": fastClock, "dns line": rebinding} {
		if n == 0 {
			t.Errorf("no arena with a %s", what)
		}
	}
}

// TestDecodeOwnsMemory: a decoded arena scenario shares nothing with the
// arena, so writing it changes nothing that later inputs decode to.
func TestDecodeOwnsMemory(t *testing.T) {
	in := []byte{0x01, 0x05, 0x01, 0x02, 0x03}
	first := Decode(in)
	want := string(first.Format())
	first.Grant.FSRead = append(first.Grant.FSRead[:0], "/scribbled")
	if len(first.World.Files) > 0 {
		first.World.Files[0].Path = "/scribbled"
	}
	if diff := cmp.Diff(want, string(Decode(in).Format())); diff != "" {
		t.Fatalf("decoding again after writing the first scenario mismatch (-want +got):\n%s", diff)
	}
}

// TestArenasHaveLinks: arena-mode inputs can attack links only in arenas
// whose worlds hold some; at least a quarter of them must.
func TestArenasHaveLinks(t *testing.T) {
	n := 0
	for _, a := range arenas() {
		if len(a.sc.World.Links) > 0 {
			n++
		}
	}
	if n < NumArenas/4 {
		t.Errorf("%d of %d arenas have links, want at least %d", n, NumArenas, NumArenas/4)
	}
}

// TestArenaKeepsStrings: the strings of an arena input's ops stay as they
// were after the fuzzer rewrites the input's bytes and the input's memory
// is recycled for later inputs, past the room the bytes are copied into.
func TestArenaKeepsStrings(t *testing.T) {
	type kept struct {
		s    *scenario.Scenario
		text string
	}
	var all []kept
	for _, data := range randomInputs(3, 3000, 600) {
		data = append([]byte{0x01}, data...) // arena mode
		in := Read(data)
		c := &scenario.Scenario{Steps: in.sc.Clone().Steps} // the ops (the lists, not the strings)
		all = append(all, kept{c, string(c.Format())})
		clear(data)
		in.Release()
	}
	for i, k := range all {
		if got := string(k.s.Format()); got != k.text {
			t.Fatalf("scenario %d changed after more inputs: was\n%s\nis\n%s", i, k.text, got)
		}
	}
}

// TestDecodedScenariosStayPut: a scenario Decode returned, in every mode,
// is the same after later inputs of its mode are decoded: each mode
// decodes into memory it reuses (a text decoder's, an arena input's, a
// generator's), which the scenario handed out must not be. The text inputs
// are the committed seeds' .sbx texts, which all decode as text.
func TestDecodedScenariosStayPut(t *testing.T) {
	seeds := seedInputs(t)
	var texts [][]byte
	for _, in := range seeds {
		if len(in) > 0 && in[0] == textMarker {
			texts = append(texts, in)
		}
	}
	for _, mode := range []struct {
		mode   Mode
		inputs [][]byte
	}{
		{ModeArena, randomInputs(1, 60, 300)},
		{ModeGenerated, randomInputs(2, 80, 300)}, // more: a generated input may draw no op
		{ModeText, texts},
	} {
		firsts, wants := make([]*scenario.Scenario, len(mode.inputs)), make([]string, len(mode.inputs))
		for i, in := range mode.inputs {
			switch mode.mode {
			case ModeArena:
				in[0] = 0x01
			case ModeGenerated:
				in[0] = GeneratedStart
			}
			d := DecodeLabelled(in)
			if d.Mode != mode.mode {
				t.Fatalf("%s input %d decodes as %s", mode.mode, i, d.Mode)
			}
			firsts[i], wants[i] = d.Scenario, string(d.Scenario.Format())
		}
		withOps := 0
		for _, sc := range firsts {
			if len(sc.Steps) > 0 {
				withOps++
			}
		}
		if withOps < 50 {
			t.Fatalf("only %d %s inputs decode to ops: the test exercises little", withOps, mode.mode)
		}
		check := func(when string) {
			t.Helper()
			for i := range firsts {
				if got := string(firsts[i].Format()); got != wants[i] {
					t.Fatalf("%s input %d: the scenario Decode returned changed %s:\n%s\nwas\n%s", mode.mode, i, when, got, wants[i])
				}
			}
		}
		check("as later inputs were decoded")
		for i := range mode.inputs { // and again, backwards
			Decode(mode.inputs[len(mode.inputs)-1-i])
		}
		check("as the inputs were decoded again")
	}
}
