package door

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStricterExamples: each reason keeps the least of its ops, in a
// session and over sessions summed in any order, so that the example a
// campaign shows does not depend on which worker met it first.
func TestStricterExamples(t *testing.T) {
	var a, b Counter
	a.Stricter("other", "fs_read /work/z")
	a.Stricter("other", "fs_read /work/b")
	a.Stricter("dangling-write", "fs_write /work/dl x")
	b.Stricter("other", "fs_read /work/a")
	want := Tally{Stricter: map[string]int64{"other": 3, "dangling-write": 1},
		StricterExamples: map[string]string{"other": "fs_read /work/a", "dangling-write": "fs_write /work/dl x"}}
	for _, order := range [][]*Counter{{&a, &b}, {&b, &a}} {
		var sum Tally
		for _, c := range order {
			sum.Add(c.Read(nil))
		}
		if diff := cmp.Diff(want, sum); diff != "" {
			t.Errorf("summed tally (-want +got):\n%s", diff)
		}
	}
}
