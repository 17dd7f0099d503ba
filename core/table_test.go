package core

import (
	"maps"
	"strconv"
	"testing"
)

// TestTable: a table answers as a map does, replacing earlier values,
// below, at and past smallTable entries, whatever room it was made with.
func TestTable(t *testing.T) {
	for _, room := range []int{0, 1, smallTable, smallTable + 1} {
		tab := newTable[string, int](room)
		want := map[string]int{}
		for i := range 3 * smallTable {
			k := strconv.Itoa(i % (2 * smallTable)) // the second round replaces
			tab.put(k, i)
			want[k] = i
			if tab.len() != len(want) {
				t.Fatalf("room %d, after %d puts: len %d, want %d", room, i+1, tab.len(), len(want))
			}
			if got := maps.Collect(tab.all); !maps.Equal(got, want) {
				t.Fatalf("room %d, after %d puts: %v, want %v", room, i+1, got, want)
			}
			for k, v := range want {
				if got, ok := tab.get(k); !ok || got != v {
					t.Fatalf("room %d: get(%q) = %d, %v, want %d", room, k, got, ok, v)
				}
			}
			if _, ok := tab.get("absent"); ok {
				t.Fatalf("room %d: get of an absent key found it", room)
			}
		}
	}
}
