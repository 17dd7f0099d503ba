package door

import (
	"strings"
	"testing"
	"unicode/utf8"

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

// TestStricterExampleTies: when sessions met the same least op, refused
// in other words (a server's error naming its own tree), the words kept
// are the least of them too, whatever order the sessions are summed in
// and the ops met: not the words of the worker that met it first.
func TestStricterExampleTies(t *testing.T) {
	var a, b Counter
	a.Stricter("other", "fs_read /work/a", "said z")
	b.Stricter("other", "fs_read /work/a", "said a")
	var c, d Counter
	c.Stricter("other", "fs_read /work/a", "said z")
	c.Stricter("other", "fs_read /work/a", "said a")
	d.Stricter("other", "fs_read /work/a", "said a")
	d.Stricter("other", "fs_read /work/a", "said z")
	for _, order := range [][]*Counter{{&a, &b}, {&b, &a}, {&c}, {&d}} {
		var sum Tally
		for _, c := range order {
			sum.Add(c.Read(nil))
		}
		if got := sum.StricterSaid["other"]; got != "said a" {
			t.Errorf("the words kept with the example are %q, want the least, %q", got, "said a")
		}
	}
}

// TestExamplesCutAtARune: an example cut short is cut between runes, so
// that what a summary prints is UTF-8.
func TestExamplesCutAtARune(t *testing.T) {
	var c Counter
	long := "fs_read /" + strings.Repeat("é", 100)
	c.Stricter("other", long, long)
	c.Said(long)
	c.Whole(long)
	c.Late(1, long)
	got := c.Read(nil)
	for what, s := range map[string]string{"example": got.StricterExamples["other"], "said": got.StricterSaid["other"],
		"said words": got.SaidWords, "whole": got.WholeExample, "late": got.LateExample} {
		if !utf8.ValidString(s) || s == "" || !strings.HasPrefix(long, s) {
			t.Errorf("the %s is %q: not a prefix of the words cut between runes", what, s)
		}
	}
}
