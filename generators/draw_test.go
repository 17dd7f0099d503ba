package generators

import "testing"

// TestSlab: carved lists and closed windows have no spare capacity, are
// never nil, never overlap, and a window gives back what its list did not
// use, or all of it when append moved the list out.
func TestSlab(t *testing.T) {
	var s slab[int]
	if c := s.carve(0); c == nil || cap(c) != 0 {
		t.Fatalf("carve(0) = %#v, want empty and not nil", c)
	}
	a := s.carve(3)
	free := len(s.free)
	w := s.open(10)
	w = append(w, 1, 2)
	w = s.close(w)
	if len(s.free) != free-2 {
		t.Errorf("a window of 10 whose list took 2 kept %d of %d free, want %d", len(s.free), free, free-2)
	}
	b := s.carve(2)
	if len(a) != 3 || cap(a) != 3 || len(w) != 2 || cap(w) != 2 || cap(b) != 2 {
		t.Fatalf("lens and caps: %d/%d, %d/%d, %d/%d", len(a), cap(a), len(w), cap(w), len(b), cap(b))
	}
	b[0], b[1] = 7, 8
	if w[0] != 1 || w[1] != 2 {
		t.Errorf("writing b changed w: %v", w)
	}
	free = len(s.free)
	w = s.open(1)
	w = append(w, 1, 2, 3) // outgrows the window: append copies it
	w = s.close(w)
	if len(s.free) != free {
		t.Errorf("a window whose list moved out kept %d of %d free, want all", len(s.free), free)
	}
	c := s.carve(1)
	c[0] = 9
	if w[0] != 1 {
		t.Errorf("a list append moved out shares memory with the next carve: %v", w)
	}
	if d := s.open(0); d == nil || s.close(d) == nil {
		t.Errorf("an empty window's list is nil")
	}
	big := s.carve(slabLen + 1) // more than any slab: an array of its own
	if len(big) != slabLen+1 || cap(big) != slabLen+1 {
		t.Errorf("carve(slabLen+1): len %d cap %d", len(big), cap(big))
	}
}

// TestDrawIntn: the draw's Intn over the seeded source is pcgSource.Intn
// written out: the same results from the same stream, over bounds whose
// first product is rejected about half the time (near 2⁶³) as well as
// small ones, the stream left at the same place, and a panic for n <= 0.
func TestDrawIntn(t *testing.T) {
	a, b := NewSource(7, 9).(*pcgSource), NewSource(7, 9).(*pcgSource)
	d := newDraw(b)
	defer d.release()
	bounds := []int{1, 2, 3, 7, 64, 100, 1000003, 1<<62 + 1, 1<<62 + 1<<61, 1<<63 - 1}
	for i := range 20000 {
		n := bounds[i%len(bounds)]
		if x, y := a.Intn(n), d.Intn(n); x != y {
			t.Fatalf("draw %d, Intn(%d): pcgSource %d, draw %d", i, n, x, y)
		}
	}
	if a.pcg.Uint64() != b.pcg.Uint64() {
		t.Fatal("the draw left the stream somewhere else than pcgSource.Intn does")
	}
	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("the draw's Intn(%d) did not panic", n)
				}
			}()
			d.Intn(n)
		}()
	}
}

// fixedSource answers every Intn with r, and remembers the n asked for.
type fixedSource struct{ r, n int }

func (s *fixedSource) Intn(n int) int { s.n = n; return s.r }

// TestWeightTable: a weightTable draws as weighted does over the same
// weights, zero weights among them: it asks for the same n, and maps each
// draw to the same index.
func TestWeightTable(t *testing.T) {
	for _, w := range [][]int{{1}, {1, 3}, {2, 17, 1}, {0, 5, 0, 0, 2, 0}, {45, 45, 4, 3, 3}, {55, 15, 10, 10, 7, 3}, {3, 0}} {
		tbl := weights(w...)
		total := 0
		for _, x := range w {
			total += x
		}
		for r := range total {
			a, b := &fixedSource{r: r}, &fixedSource{r: r}
			if got, want := tbl.draw(a), weighted(b, w); got != want || a.n != b.n {
				t.Errorf("weights %v, draw %d: the table gives %d after Intn(%d), weighted %d after Intn(%d)", w, r, got, a.n, want, b.n)
			}
		}
	}
}
