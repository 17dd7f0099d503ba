package oracle

// scanLimit is how many entries a modelTable keeps in a list, looked up by
// scanning, before it hashes them: most worlds have a handful of files,
// routes and dns lines and a run writes a handful of files, and a scan
// that compares lengths first finds one among a few sooner than a Go map
// hashes the key.
const scanLimit = 8

// modelTable is the model's table of a world's entries, a later put of a
// key replacing the earlier: a list while it holds at most scanLimit
// entries, a Go map from the first put past that. The zero modelTable is
// empty.
type modelTable[K comparable, V any] struct {
	list []modelEntry[K, V] // every entry while m is nil
	m    map[K]V
}

type modelEntry[K comparable, V any] struct {
	k K
	v V
}

// reset empties t, keeping its memory.
func (t *modelTable[K, V]) reset() {
	clear(t.list)
	t.list = t.list[:0]
	clear(t.m)
	t.m = nilIfEmpty(t.m)
}

// nilIfEmpty returns nil for an empty map, which a reset table goes back
// to scanning; its memory is dropped: maps outgrow worlds only rarely.
func nilIfEmpty[K comparable, V any](m map[K]V) map[K]V {
	if len(m) == 0 {
		return nil
	}
	return m
}

func (t *modelTable[K, V]) put(k K, v V) {
	if t.m != nil {
		t.m[k] = v
		return
	}
	for i := range t.list {
		if t.list[i].k == k {
			t.list[i].v = v
			return
		}
	}
	if len(t.list) < scanLimit {
		t.list = append(t.list, modelEntry[K, V]{k, v})
		return
	}
	t.m = make(map[K]V, 2*scanLimit)
	for _, e := range t.list {
		t.m[e.k] = e.v
	}
	t.m[k] = v
	clear(t.list)
	t.list = t.list[:0]
}

func (t *modelTable[K, V]) get(k K) (V, bool) {
	if t.m != nil {
		v, ok := t.m[k]
		return v, ok
	}
	for i := range t.list {
		if t.list[i].k == k {
			return t.list[i].v, true
		}
	}
	var zero V
	return zero, false
}

// len returns the number of entries.
func (t *modelTable[K, V]) len() int {
	if t.m != nil {
		return len(t.m)
	}
	return len(t.list)
}
