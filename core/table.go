package core

// table is a map from K to V sized for a world's few entries: a slice of
// pairs, scanned in order, while it holds at most smallTable of them, and a
// map past that. A fuzz exec prepares a world per input, most with a
// handful of files, routes or links; for those one slice is cheaper to
// build than a map (one allocation, no hashing) and no slower to read. The
// zero table is empty and ready to use.
type table[K comparable, V any] struct {
	pairs []pair[K, V] // the entries while there are at most smallTable; nil once m is made
	m     map[K]V      // the entries past smallTable
}

type pair[K comparable, V any] struct {
	k K
	v V
}

// smallTable is the most entries a table scans: about where hashing a key
// starts to cost less than comparing it with every entry.
const smallTable = 8

// newTable returns an empty table with room for n entries.
func newTable[K comparable, V any](n int) table[K, V] {
	if n > smallTable {
		return table[K, V]{m: make(map[K]V, n)}
	}
	return table[K, V]{pairs: make([]pair[K, V], 0, n)}
}

// get returns the value for k, and false when there is none.
func (t *table[K, V]) get(k K) (V, bool) {
	if t.m != nil {
		v, ok := t.m[k]
		return v, ok
	}
	for i := range t.pairs {
		if t.pairs[i].k == k {
			return t.pairs[i].v, true
		}
	}
	var zero V
	return zero, false
}

// put sets the value for k, replacing an earlier one.
func (t *table[K, V]) put(k K, v V) {
	if t.m != nil {
		t.m[k] = v
		return
	}
	for i := range t.pairs {
		if t.pairs[i].k == k {
			t.pairs[i].v = v
			return
		}
	}
	if len(t.pairs) < smallTable {
		if t.pairs == nil {
			t.pairs = make([]pair[K, V], 0, smallTable/2) // a world's writes: one allocation for the first few
		}
		t.pairs = append(t.pairs, pair[K, V]{k, v})
		return
	}
	t.m = make(map[K]V, 2*smallTable)
	for _, p := range t.pairs {
		t.m[p.k] = p.v
	}
	t.m[k], t.pairs = v, nil
}

// len returns the number of entries.
func (t *table[K, V]) len() int {
	if t.m != nil {
		return len(t.m)
	}
	return len(t.pairs)
}

// all yields every entry once, in no particular order.
func (t *table[K, V]) all(yield func(K, V) bool) {
	if t.m != nil {
		for k, v := range t.m {
			if !yield(k, v) {
				return
			}
		}
		return
	}
	for _, p := range t.pairs {
		if !yield(p.k, p.v) {
			return
		}
	}
}

// linkAt returns the target of the link at the path buf holds, without
// copying buf: Go compares and indexes maps with string(buf) in place.
func linkAt(links *table[string, string], buf []byte) (string, bool) {
	if links.m != nil {
		t, ok := links.m[string(buf)]
		return t, ok
	}
	for i := range links.pairs {
		if links.pairs[i].k == string(buf) {
			return links.pairs[i].v, true
		}
	}
	return "", false
}
