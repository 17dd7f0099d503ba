package fuzzinput

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
		in := decodeInput(data)
		c := &scenario.Scenario{Steps: in.sc.Clone().Steps} // the ops (the lists, not the strings)
		all = append(all, kept{c, string(c.Format())})
		clear(data)
		in.recycle()
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
// generator's), which the scenario handed out must not be.
func TestDecodedScenariosStayPut(t *testing.T) {
	for _, mode := range []struct {
		name  string
		first byte
	}{{"arena", 0x01}, {"generated", generatedStart}, {"text", textMarker}} {
		inputs := randomInputs(uint64(mode.first), 60, 300)
		for _, in := range inputs {
			in[0] = mode.first
		}
		inputs[0] = append([]byte{mode.first}, "\ngrant fs_read /work/\nfile /work/a hi\nfs_read /work/a\nfs_read /etc/passwd\n"...)
		firsts, wants := make([]*scenario.Scenario, len(inputs)), make([]string, len(inputs))
		for i, in := range inputs {
			firsts[i] = Decode(in)
			wants[i] = string(firsts[i].Format())
		}
		for i, in := range inputs { // and again, in other memory than the first time
			Decode(in)
			if got := string(firsts[i].Format()); got != wants[i] {
				t.Fatalf("%s input %d: the scenario Decode returned changed as later inputs were decoded:\n%s\nwas\n%s", mode.name, i, got, wants[i])
			}
		}
	}
}
