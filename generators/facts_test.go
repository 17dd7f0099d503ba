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
				d.facts.reset(sc)
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
