package door

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// TestStricterExamples: each reason keeps the least of its ops with the
// words the sandbox refused it in, in a session and over sessions summed
// in any order, so that the example a campaign shows does not depend on
// which worker met it first.
func TestStricterExamples(t *testing.T) {
	var a, b Counter
	a.Stricter("other", "fs_read /work/z", "said z")
	a.Stricter("other", "fs_read /work/b", "said b")
	a.Stricter("other", "fs_read /work/c", "said c")
	a.Stricter("dangling-write", "fs_write /work/dl x", "")
	b.Stricter("other", "fs_read /work/a", "said a")
	want := Tally{Stricter: map[string]int64{"other": 4, "dangling-write": 1},
		StricterExamples: map[string]string{"other": "fs_read /work/a", "dangling-write": "fs_write /work/dl x"},
		StricterSaid:     map[string]string{"other": "said a", "dangling-write": ""},
		Kinds:            map[string]OpCounts{core.OpRead: {Stricter: 4}, core.OpWrite: {Stricter: 1}}}
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

// TestRefusedCounted: the ops the model refuses are counted with those
// the sandbox let through, summed over sessions, and so by op kind, with
// the stricter and passed ones; AllowListRefusal names
// the kinds the grant's allow-lists give, not an internal address (a
// granted host may answer with one), a budget's halt or a missing file.
func TestRefusedCounted(t *testing.T) {
	var a, b Counter
	a.Refused(core.OpRead, true)
	a.Refused(core.OpWrite, false)
	a.Passed(core.OpRead)
	a.Stricter("refused-allowed", "fs_write /work/a x", "")
	b.Refused(core.OpRead, true)
	b.Passed(core.OpFetch)
	var sum Tally
	sum.Add(a.Read(nil))
	sum.Add(b.Read(nil))
	if sum.Refused != 3 || sum.LetThrough != 2 || sum.Passed != 2 {
		t.Errorf("%d refused, %d let through, %d passed; want 3, 2 and 2", sum.Refused, sum.LetThrough, sum.Passed)
	}
	want := map[string]OpCounts{core.OpRead: {Passed: 1, Refused: 2, LetThrough: 2}, core.OpWrite: {Stricter: 1, Refused: 1}, core.OpFetch: {Passed: 1}}
	if diff := cmp.Diff(want, sum.Kinds); diff != "" {
		t.Errorf("counts by kind (-want +got):\n%s", diff)
	}
	for k := core.Kind(0); k < core.NumKinds; k++ {
		want := k == core.PathTraversal || k == core.FSReadDenied || k == core.FSWriteDenied || k == core.EgressDenied
		if got := AllowListRefusal(k); got != want {
			t.Errorf("AllowListRefusal(%s) = %v, want %v", k, got, want)
		}
	}
}
