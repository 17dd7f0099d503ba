package oracle

// scanLimit is how many entries a modelTable keeps in a list, looked up by
// scanning, before it hashes them: most runs write a handful of files and
// most worlds have a handful of routes and dns lines, and a scan that
// compares lengths first finds one among a few sooner than a Go map hashes
// the key.
const scanLimit = 8

// modelTable is the model's table of a world's entries, a later put of a
// key replacing the earlier: a list while it holds at most scanLimit
// entries, a Go map from the first put past that, or from the start when
// it is reset for more. The zero modelTable is an empty list.
type modelTable[K comparable, V any] struct {
	list   []modelEntry[K, V] // the entries while not hashed
	m      map[K]V            // the entries while hashed; kept for reuse while not
	hashed bool
}

type modelEntry[K comparable, V any] struct {
	k K
	v V
}

// reset empties t for about n entries, keeping its memory.
func (t *modelTable[K, V]) reset(n int) {
	clear(t.list)
	t.list = t.list[:0]
	clear(t.m)
	if t.hashed = n > scanLimit; t.hashed && t.m == nil {
		t.m = make(map[K]V, n)
	}
}

func (t *modelTable[K, V]) put(k K, v V) {
	if t.hashed {
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
	if t.m == nil {
		t.m = make(map[K]V, 2*scanLimit)
	}
	for _, e := range t.list {
		t.m[e.k] = e.v
	}
	t.m[k] = v
	t.hashed = true
	clear(t.list)
	t.list = t.list[:0]
}

func (t *modelTable[K, V]) get(k K) (V, bool) {
	if t.hashed {
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
