package core

import (
	"maps"
	"strconv"
	"strings"
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

// TestTableCopy: a copy answers as the table it copies, scanned and
// indexed, in memory that held a larger table before; and putting into
// the copy leaves the original as it was.
func TestTableCopy(t *testing.T) {
	var cp table[string, int]
	for _, n := range []int{3 * smallTable, 0, 1, smallTable, smallTable + 1, 2 * smallTable} {
		orig := newTable[string, int](0)
		for i := range n {
			orig.put(strconv.Itoa(i), i)
		}
		cp.copyOf(&orig)
		want := maps.Collect(orig.all)
		if got := maps.Collect(cp.all); !maps.Equal(got, want) {
			t.Fatalf("%d entries: the copy holds %v, want %v", n, got, want)
		}
		for k, v := range want {
			if got, ok := cp.get(k); !ok || got != v {
				t.Fatalf("%d entries: the copy's get(%q) = %d, %v, want %d", n, k, got, ok, v)
			}
		}
		if _, ok := cp.get(strconv.Itoa(n)); ok {
			t.Fatalf("%d entries: the copy holds a key the table does not", n)
		}
		cp.put("new", -1)
		if _, ok := orig.get("new"); ok {
			t.Fatalf("%d entries: putting into the copy put into the table", n)
		}
	}
}

// TestHashKeySpreads counts collisions in the low 16 bits of hashKey, which
// a table of 65,536 slots indexes by, over keys that differ the way hostile
// ops' paths do: 100,000 paths of 1 to 600 bytes numbered in one place (a
// check of the spread in general), and 65,536 paths of 15 bytes that
// differ only in their last two (the top of a seven-byte last word, which
// the hash keeps out of its low bits without textscan.Spread: then they
// shared 128 slots), as file keys and as the paths of route keys. Each set
// must collide about as often as random values would, and no more;
// hashBuf must agree with hashKey.
func TestHashKeySpreads(t *testing.T) {
	numbered := make([]string, 100_000)
	for i := range numbered {
		l := 1 + i%600
		s := strings.Repeat("a", l)
		at := (i * 7919) % l
		numbered[i] = s[:at] + strconv.Itoa(i) + s[at:]
	}
	tails := make([]string, 1<<16)
	for i := range tails {
		tails[i] = "/work/out/f" + string([]byte{'.', 'x', byte(i), byte(i >> 8)})
	}
	for _, c := range []struct {
		name  string
		keys  []string
		route bool // hash each key as the path of a route of one host
		want  int  // collisions of random values: n − m(1 − e^(−n/m)), m = 65,536
	}{
		{"numbered paths", numbered, false, 48_713},
		{"last two bytes", tails, false, 24_109},
		{"routes, last two bytes", tails, true, 24_109},
	} {
		seen := make(map[uint64]bool, len(c.keys))
		collisions := 0
		for _, k := range c.keys {
			h := hashKey(k)
			if hb := hashBuf([]byte(k)); hb != h {
				t.Fatalf("hashBuf(%q) = %#x, hashKey = %#x", k, hb, h)
			}
			if c.route {
				h = hashKey(routeKey{"api.internal", k})
			}
			if seen[h&0xffff] {
				collisions++
			}
			seen[h&0xffff] = true
		}
		if collisions > c.want*105/100 {
			t.Errorf("%s: %d of %d keys collide in 16 bits, want about %d", c.name, collisions, len(c.keys), c.want)
		}
	}
}
