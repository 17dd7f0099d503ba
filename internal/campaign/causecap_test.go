package campaign

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestFailureCauseFoldsWhatVaries: a failure's words that differ only in
// what a run names afresh (a temporary directory's entry, a hexadecimal
// id, a random token) are one cause; words that differ otherwise are not.
func TestFailureCauseFoldsWhatVaries(t *testing.T) {
	op := core.Op{Kind: "fs_read", Args: []string{"/work/a"}}
	for _, tc := range [][2]string{
		{"cannot open /tmp/sbx-abc/state", "cannot open /tmp/sbx-qrstuv/state"},
		{"cannot open /var/folders/xy/zw_q/T/go-build/state", "cannot open /var/folders/ab/cd_e/T/sbx/state"},
		{`cannot open C:\Users\ci\AppData\Local\Temp\sbx-abc\state`, `cannot open C:\Users\ci\AppData\Local\Temp\sbx-xyz\state`},
		{"panic at 0xc000123abc", "panic at 0xdeadbeef"},
		{"session 3fa2b9c1e7 lost", "session ab83fe0d1c lost"},
		{"token a8F3kqZ2pL rejected", "token Qw7eR4tyUi rejected"},
	} {
		if a, b := failureCause(op, tc[0]), failureCause(op, tc[1]); a != b {
			t.Errorf("%q and %q are two causes, %q and %q; want one", tc[0], tc[1], a, b)
		}
	}
	if got := replaceWord("abab ab", "ab", "…"); got != "abab …" {
		t.Errorf("replaceWord(abab ab, ab) = %q: a match after one it skipped is touched by it", got)
	}
	// An op's argument is cut out where it stands as a word of its own,
	// not out of another word: "ha" leaves "(a hang)" whole, and "a" is
	// too short to tell from the words.
	for _, tc := range []struct{ arg, want string }{
		{"ha", "fs_read, failing: open …: did not return (a hang)"},
		{"a", "fs_read, failing: open a: did not return (a hang)"},
	} {
		op := core.Op{Kind: "fs_read", Args: []string{tc.arg}}
		if got := failureCause(op, "open "+tc.arg+": did not return (a hang)"); got != tc.want {
			t.Errorf("failureCause of an op of argument %q = %q, want %q", tc.arg, got, tc.want)
		}
	}
	for _, tc := range [][2]string{
		{"cannot open /work/state", "cannot open /work/other"},
		{"permission denied", "connection refused"},
		{"session deadbeef lost", "session facade lost"},
	} {
		if a, b := failureCause(op, tc[0]), failureCause(op, tc[1]); a == b {
			t.Errorf("%q and %q are one cause, %q; want two", tc[0], tc[1], a)
		}
	}
}

// wordy panics at its first op with words of a word that changes from
// check to check and folds into nothing: each check a cause of its own.
type wordy struct{ core.Sandbox }

var wordyRuns atomic.Int64

// letters spells n in letters alone.
func letters(n int64) string {
	b := []byte{}
	for n++; n > 0; n /= 26 {
		b = append(b, byte('a'+n%26))
	}
	return string(b)
}

func (wordy) Run(core.Op) core.Result {
	panic("the state named " + letters(wordyRuns.Add(1)) + " is gone")
}

// TestCausesSeenAreCapped: a sandbox whose failures name something new at
// every check lists at most MaxCauses causes and one entry for the rest,
// which counts every violation left.
func TestCausesSeenAreCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("many checks")
	}
	f := func(g core.Grant, w core.World) (core.Sandbox, error) { return wordy{core.NewReference(g, w)}, nil }
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 20000, Workers: 2, Target: sut.Static("test-wordy", f)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.CausesSeen) != MaxCauses+1 {
		t.Fatalf("%d causes listed of %d raw findings; want %d and the rest together", len(res.CausesSeen), res.Raw, MaxCauses)
	}
	var sum int64
	for _, c := range res.CausesSeen {
		sum += c.Violations
	}
	last := res.CausesSeen[MaxCauses]
	if last.Cause != OtherCauses || sum != res.Raw || last.Violations != res.Raw-MaxCauses {
		t.Errorf("last cause %q with %d violations, %d in all of %d raw; want %q with the rest", last.Cause, last.Violations, sum, res.Raw, OtherCauses)
	}
	if !strings.Contains(OtherCauses, " 256 ") || MaxCauses != 256 {
		t.Errorf("OtherCauses %q does not name MaxCauses %d", OtherCauses, MaxCauses)
	}
}

// TestCausesListedInCheckOrder: the causes listed, when there are more
// than MaxCauses, are those of the lowest checks, with the same counts,
// whichever check finished first.
func TestCausesListedInCheckOrder(t *testing.T) {
	sc := &scenario.Scenario{Steps: []scenario.Step{{Op: core.Op{Kind: core.OpRead, Args: []string{"/work/a"}}}}}
	seen := func(order []int) []CauseSeen {
		k := newCollector(false, MaxPerInvariant, func(raw) {})
		for _, i := range order {
			f := oracle.Finding{Invariant: oracle.Total, Step: 1, Detail: "the state named " + letters(int64(i)) + " is gone"}
			k.offer(i, sc, []oracle.Finding{f}, stepMarks{})
			k.finish(i)
		}
		k.flush()
		return k.seenCauses()
	}
	var inOrder []int
	for i := range MaxCauses + 2 {
		inOrder = append(inOrder, i)
	}
	swapped := slices.Clone(inOrder)
	swapped[MaxCauses-1], swapped[MaxCauses] = swapped[MaxCauses], swapped[MaxCauses-1] // the 257th check finishes before the 256th
	if diff := cmp.Diff(seen(inOrder), seen(swapped)); diff != "" {
		t.Errorf("the causes listed depend on which check finished first (-in order +swapped):\n%s", diff)
	}
}
