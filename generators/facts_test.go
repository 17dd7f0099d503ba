package generators

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/attack"
)

// TestFactsDrawAsLookups: an op drawn with the facts Generate keeps is the
// op drawn without them, computing each fact on the spot, from the same
// draws: the kept facts are a cache, never a second opinion.
func TestFactsDrawAsLookups(t *testing.T) {
	for i := range 1500 {
		sc := seeded(i)
		for _, cl := range attack.All() {
			for k := range 4 {
				stream := uint64(i)<<8 | uint64(cl)<<2 | uint64(k)
				d := newDraw(NewSource(11, stream))
				d.facts.reset(sc, nil)
				kept := Op(d, cl, sc)
				d.release()
				fresh := Op(NewSource(11, stream), cl, sc)
				if diff := cmp.Diff(fresh, kept); diff != "" {
					t.Fatalf("scenario %d, class %s, stream %d: kept facts draw another op (-fresh +kept):\n%s", i, cl, stream, diff)
				}
			}
		}
	}
}

// TestRecordedFactsAreLearnt: the facts Generate starts a scenario with,
// from what its world gen recorded (each granted host's worldless flags,
// the link recipes it planted), are the facts learnt from the scenario
// alone: every flag of every host, and the link entries of every symlink
// class.
func TestRecordedFactsAreLearnt(t *testing.T) {
	g := NewGenerator()
	planted := 0
	for i := range 3000 {
		sc := g.Generate(NewSource(5, uint64(i)))
		var recorded, learnt facts
		recorded.reset(sc, &g.d.record)
		learnt.reset(sc, nil)
		for k, h := range sc.Grant.NetHosts {
			for _, fl := range []hostFlag{ipSpelled, metadata, probe, internal, dnsLined, safe} {
				if r, l := recorded.has(k, fl), learnt.has(k, fl); r != l {
					t.Fatalf("scenario %d, host %d %q, flag %b: recorded %v, learnt %v", i, k, h, fl, r, l)
				}
			}
		}
		for _, cl := range symlinkClasses {
			r, l := recorded.linkEntries(cl), learnt.linkEntries(cl)
			if diff := cmp.Diff(l, r, cmp.AllowUnexported(linkEntry{}), cmp.Comparer(func(a, b *linkRecipe) bool { return a == b })); diff != "" {
				t.Fatalf("scenario %d, class %s: recorded link entries differ (-learnt +recorded):\n%s", i, cl, diff)
			}
			planted += len(r)
		}
	}
	if planted == 0 {
		t.Fatal("no scenario had a link planted: the test tests nothing")
	}
}
