package oracle

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestModelTableIsAMap: a modelTable answers every get as a Go map given
// the same puts does, a later put of a key replacing the earlier, while it
// scans a short list, after it spills into a map past scanLimit entries,
// hashed from the start when reset for more, and after every reset
// whatever the number it was reset for.
func TestModelTableIsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	var tab modelTable[modelRoute, int]
	spilled := 0
	for round := range 2000 {
		tab.reset([]int{0, scanLimit, scanLimit + 1, 3 * scanLimit}[round%4]) // a hint, right or wrong
		want := map[modelRoute]int{}
		keys := 1 + r.IntN(3*scanLimit)
		for i := range r.IntN(4 * scanLimit) {
			k := modelRoute{fmt.Sprint("h", r.IntN(keys)), fmt.Sprint("/", r.IntN(2))}
			tab.put(k, i)
			want[k] = i
			for j := range keys {
				for _, p := range []string{"/0", "/1", "/2"} {
					q := modelRoute{fmt.Sprint("h", j), p}
					got, ok := tab.get(q)
					if w, wok := want[q]; got != w || ok != wok {
						t.Fatalf("round %d, after %d puts: get(%v) = %d, %v; a map says %d, %v", round, i+1, q, got, ok, w, wok)
					}
				}
			}
			if tab.len() != len(want) {
				t.Fatalf("round %d: len %d, a map has %d", round, tab.len(), len(want))
			}
		}
		if tab.hashed && round%4 < 2 {
			spilled++
		}
	}
	if spilled < 100 {
		t.Fatalf("only %d of 1000 rounds spilled into a map: the test exercises little", spilled)
	}
	var s modelTable[string, string]
	if _, ok := s.get(""); ok {
		t.Fatal("the zero table holds the empty key")
	}
}

// len returns the number of entries: for the test, which checks that a
// put replaces.
func (t *modelTable[K, V]) len() int {
	if t.hashed {
		return len(t.m)
	}
	return len(t.list)
}
