package core

import "github.com/sbxfuzz/sbxfuzz/internal/textscan"

// table is a map from K to V sized for a world's entries: a slice of pairs
// in the order their keys were first put, scanned while it holds at most
// smallTable of them, and indexed past that by an open-addressing hash
// index of its own. A campaign and the fuzz targets prepare a world per
// scenario, most with a few to a few dozen files, routes and links; a Go map
// for those costs more to build (its buckets, a hash per insert, more
// garbage) than it saves on the handful of lookups a scenario makes. The
// zero table is empty and ready to use.
type table[K tableKey, V any] struct {
	pairs []pair[K, V] // every entry, in the order its key was first put
	// index, once pairs outgrows smallTable (empty until then), holds i+1
	// for pairs[i] at the slot its key hashes to (or the next free one
	// after it, wrapping), 0 in a free slot. Its length is a power of two
	// at least twice len(pairs), so a probe meets a free slot soon.
	index []uint32
}

// tableKey is what a table is keyed by: a path or name, or a route.
type tableKey interface{ string | routeKey }

type pair[K tableKey, V any] struct {
	k K
	v V
}

// smallTable is the most entries a table scans: about where hashing a key
// starts to cost less than comparing it with every entry.
const smallTable = 8

// newTable returns an empty table with room for n entries.
func newTable[K tableKey, V any](n int) table[K, V] {
	var t table[K, V]
	t.reset(n)
	return t
}

// reset empties t and makes room for n entries, reusing t's memory where
// it is large enough.
func (t *table[K, V]) reset(n int) {
	clear(t.pairs) // the entries' strings must not outlive them
	t.pairs = t.pairs[:0]
	if cap(t.pairs) < n {
		t.pairs = make([]pair[K, V], 0, n)
	}
	t.sizeIndex(n)
}

// sizeIndex makes the index empty, with room for n entries: none while n
// is at most smallTable.
func (t *table[K, V]) sizeIndex(n int) {
	if n <= smallTable {
		t.index = t.index[:0]
		return
	}
	size := indexSize(n)
	if cap(t.index) < size {
		t.index = make([]uint32, size)
		return
	}
	t.index = t.index[:size]
	clear(t.index)
}

// indexSize is the index length for n entries: the least power of two at
// least 2n.
func indexSize(n int) int {
	size := 2 * smallTable
	for size < 2*n {
		size *= 2
	}
	return size
}

// get returns the value for k, and false when there is none.
func (t *table[K, V]) get(k K) (V, bool) {
	if len(t.index) == 0 { // scanned here, not in find: most worlds' tables are small
		for i := range t.pairs {
			if t.pairs[i].k == k {
				return t.pairs[i].v, true
			}
		}
	} else if i := t.lookup(k); i >= 0 {
		return t.pairs[i].v, true
	}
	var zero V
	return zero, false
}

// find returns the index in pairs of k's entry, or -1.
func (t *table[K, V]) find(k K) int {
	if len(t.index) == 0 {
		for i := range t.pairs {
			if t.pairs[i].k == k {
				return i
			}
		}
		return -1
	}
	return t.lookup(k)
}

// lookup is find through the index.
func (t *table[K, V]) lookup(k K) int {
	mask := uint64(len(t.index) - 1)
	for s := hashKey(k) & mask; ; s = (s + 1) & mask {
		i := int(t.index[s]) - 1
		if i < 0 || t.pairs[i].k == k {
			return i
		}
	}
}

// put sets the value for k, replacing an earlier one. Through the index,
// the probe that finds no entry for k ends at the free slot k's goes in:
// one hash of k, not one to look and one to place (a world's files are
// put once each, per scenario).
func (t *table[K, V]) put(k K, v V) {
	if len(t.index) == 0 {
		if i := t.find(k); i >= 0 {
			t.pairs[i].v = v
			return
		}
		t.add(k, v)
		if len(t.pairs) > smallTable {
			t.reindex()
		}
		return
	}
	mask := uint64(len(t.index) - 1)
	s := hashKey(k) & mask
	for ; t.index[s] != 0; s = (s + 1) & mask {
		if i := t.index[s] - 1; t.pairs[i].k == k {
			t.pairs[i].v = v
			return
		}
	}
	t.add(k, v)
	if n := len(t.pairs); 2*n > len(t.index) {
		t.reindex()
	} else {
		t.index[s] = uint32(n)
	}
}

// add appends the entry k, v, which the table does not hold.
func (t *table[K, V]) add(k K, v V) {
	if t.pairs == nil {
		t.pairs = make([]pair[K, V], 0, smallTable/2) // a world's writes: one allocation for the first few
	}
	t.pairs = append(t.pairs, pair[K, V]{k, v})
}

// reindex builds the index afresh, sized for the pairs there are now and
// as many again.
func (t *table[K, V]) reindex() {
	t.sizeIndex(2 * len(t.pairs))
	if len(t.index) > 0 {
		for i := range t.pairs {
			t.slot(i)
		}
	}
}

// dropIf takes out every entry whose value drop reports, keeping the order
// of the others.
func (t *table[K, V]) dropIf(drop func(V) bool) {
	kept := t.pairs[:0]
	for _, p := range t.pairs {
		if !drop(p.v) {
			kept = append(kept, p)
		}
	}
	if len(kept) == len(t.pairs) {
		return
	}
	clear(t.pairs[len(kept):])
	t.pairs = kept
	t.reindex()
}

// slot indexes pairs[i], whose key the index does not hold yet.
func (t *table[K, V]) slot(i int) {
	mask := uint64(len(t.index) - 1)
	s := hashKey(t.pairs[i].k) & mask
	for t.index[s] != 0 {
		s = (s + 1) & mask
	}
	t.index[s] = uint32(i + 1)
}

// copyOf makes t a copy of o, in t's memory where it is large enough.
func (t *table[K, V]) copyOf(o *table[K, V]) {
	clear(t.pairs)
	t.pairs = append(t.pairs[:0], o.pairs...)
	t.index = append(t.index[:0], o.index...)
}

// len returns the number of entries.
func (t *table[K, V]) len() int { return len(t.pairs) }

// all yields every entry once, in the order its key was first put.
func (t *table[K, V]) all(yield func(K, V) bool) {
	for _, p := range t.pairs {
		if !yield(p.k, p.v) {
			return
		}
	}
}

// stringKeySeed starts the hash of a string key, for hashKey and hashBuf,
// which must agree.
const stringKeySeed = 0x9e3779b97f4a7c15

// hashKey hashes a table's key. Its value never shows: it only places keys
// in a table's index, whose entries are read in the order they were put.
func hashKey[K tableKey](k K) uint64 {
	switch k := any(k).(type) {
	case string:
		return textscan.Spread(textscan.Hash(stringKeySeed, k))
	case routeKey:
		return textscan.Spread(textscan.Hash(textscan.Hash(0x2545f4914f6cdd1d, k.host), k.path))
	}
	panic("unreachable: tableKey is a string or a routeKey")
}

// hashBuf is hashKey of the string buf holds, for a string or a []byte.
func hashBuf[S string | []byte](buf S) uint64 {
	switch b := any(buf).(type) {
	case string:
		return hashKey(b)
	case []byte:
		return textscan.Spread(textscan.HashBytes(stringKeySeed, b))
	}
	panic("unreachable: S is a string or a []byte")
}

// linkIndex returns the index in links.pairs of the link at the path buf
// holds, or -1, without copying buf.
func linkIndex[S string | []byte](links *table[string, string], buf S) int {
	if len(links.index) == 0 {
		for i := range links.pairs {
			if links.pairs[i].k == string(buf) {
				return i
			}
		}
		return -1
	}
	mask := uint64(len(links.index) - 1)
	for s := hashBuf(buf) & mask; ; s = (s + 1) & mask {
		i := int(links.index[s]) - 1
		if i < 0 || links.pairs[i].k == string(buf) {
			return i
		}
	}
}
