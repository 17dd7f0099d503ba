//go:build unix

package realsut

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// checkCounted runs src against a and returns the findings and what the
// session counted once it ended.
func checkCounted(t *testing.T, a Adapter, src string) ([]oracle.Finding, door.Tally) {
	t.Helper()
	return checksCounted(t, a, src, 1, 2*time.Second)
}

// checksCounted is checkCounted judging src n times in one session, each
// after the first in a tree restored in place, each op given timeout.
func checksCounted(t *testing.T, a Adapter, src string, n int, timeout time.Duration) ([]oracle.Finding, door.Tally) {
	t.Helper()
	f, end, tally, err := a.StartCounted()
	if err != nil {
		t.Fatal(err)
	}
	c, err := judge.NewCase(parse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	var found []oracle.Finding
	for range n {
		found = append(found, judge.Check(f, c, nil, judge.Options{Timeout: timeout})...)
	}
	if err := end(); err != nil {
		t.Fatal(err)
	}
	return found, tally()
}

// refuses is the os.Root sandbox refusing, before it acts and so
// touching nothing, every op on the paths given, with verdict v and the
// words detail.
func refuses(v realfs.Verdict, detail string, paths ...string) Adapter {
	a := OSRoot
	a.Open = func(string, Timeouts) (Session, error) { return refusingSession{v, detail, paths}, nil }
	return a
}

type refusingSession struct {
	verdict realfs.Verdict
	detail  string
	paths   []string
}

func (refusingSession) Close() error { return nil }

func (s refusingSession) Driver(t *realfs.Tree, g core.GrantSpec, ws scenario.WorldSpec) (realfs.Driver, error) {
	d, err := osRootSession{}.Driver(t, g, ws)
	return &refusing{d, s}, err
}

type refusing struct {
	realfs.Driver
	s refusingSession
}

func (d *refusing) Do(op core.Op) (realfs.Outcome, error) {
	if slices.Contains(d.s.paths, op.Args[0]) {
		return realfs.Outcome{Verdict: d.s.verdict, Detail: d.s.detail}, nil
	}
	return d.Driver.Do(op)
}

const stricterWorld = `grant fs_read /work/
grant fs_write /work/out/
file /work/a.txt hello
file /etc/secret "top secret"
link /work/al a.txt
link /work/out/dl new
link /work/loop loop
file /work/out/sub/keep k
link /work/out/dd sub
`

// ignoreWords leaves out of a Tally's comparison the words the sandbox
// said, which TestReplayShowsTheSandboxsWords judges.
var ignoreWords = cmpopts.IgnoreFields(door.Tally{}, "Said", "SaidWords")

// TestStricterIsCountedNotJudged: a sandbox that refuses, touching
// nothing, an op the model allows is stricter, not broken (SPEC §14):
// without a promise it has no finding and the op is counted under the
// reason observed, the model's answer standing in for it (the write the
// sandbox refused is made by the harness, so the read after it agrees);
// with a promise of that reason, or of all, it is a verdict-matches-model
// finding. os.Root's own adapter promises all.
func TestStricterIsCountedNotJudged(t *testing.T) {
	for _, tc := range []struct {
		name, ops  string
		sandbox    Adapter
		wantReason string
		passed     int64 // the ops after it, which the sandbox let through
	}{
		{"a read refused", "fs_read /work/a.txt\n", refuses(realfs.Denied, "Access denied", "/work/a.txt"), ReasonOther, 0},
		{"a read said missing", "fs_read /work/a.txt\n", refuses(realfs.NotFound, "ENOENT", "/work/a.txt"), ReasonOther, 0},
		{"a read through a link", "fs_read /work/al\n", refuses(realfs.Denied, "Access denied", "/work/al"), ReasonReadThroughLink, 0},
		{"a read of a file named with a trailing slash", "fs_read /work/a.txt/.\n", refuses(realfs.NotFound, "ENOTDIR", "/work/a.txt/."), ReasonTrailingSlash, 0},
		{"a write through a dangling link named with a trailing slash", "fs_write /work/out/dl/ x\n", refuses(realfs.Refused, "EISDIR", "/work/out/dl/"), ReasonTrailingSlash, 0},
		{"a denial of a read through a loop of links", "fs_read /work/loop\n", refuses(realfs.Denied, "Access denied", "/work/loop"), ReasonLinkLoop, 0},
		{"a read of a path with a doubled slash", "fs_read /work//a.txt\n", refuses(realfs.Denied, "Access denied", "/work//a.txt"), ReasonUncleanPath, 0},
		{"a read of a path with a doubled slash through a link", "fs_read /work//al\n", refuses(realfs.Denied, "Access denied", "/work//al"), ReasonReadThroughLink, 0},
		{"a read of a path with a dot", "fs_read /./work/a.txt\n", refuses(realfs.Denied, "Access denied", "/./work/a.txt"), ReasonUncleanPath, 0},
		{"a denial of a read the model finds nothing for", "fs_read /work/none\n", refuses(realfs.Denied, "Access denied", "/work/none"), ReasonOther, 0},
		{"a write through a dangling link", "fs_write /work/out/dl x\nfs_read /work/out/new\n",
			refuses(realfs.Refused, "Access denied", "/work/out/dl"), ReasonDanglingWrite, 1},
		{"a new file in a directory a link leads to", "fs_write /work/out/dd/new x\n",
			refuses(realfs.Refused, "Access denied", "/work/out/dd/new"), ReasonWriteThroughLink, 0},
		{"a write whose parent is said missing", "fs_write /work/out/d/x y\n",
			refuses(realfs.Refused, "Parent directory does not exist", "/work/out/d/x"), ReasonParentMissing, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.sandbox
			a.Promises = nil
			found, got := checkCounted(t, a, stricterWorld+tc.ops)
			if len(found) != 0 {
				t.Fatalf("promising nothing: findings %v, want none", invariants(found))
			}
			op, _, _ := strings.Cut(tc.ops, "\n") // the first op is the one refused
			kind, _, _ := strings.Cut(op, " ")
			kinds := map[string]door.OpCounts{kind: {Stricter: 1}}
			if tc.passed > 0 { // the reads after it
				kinds[core.OpRead] = door.OpCounts{Passed: tc.passed}
			}
			sess, _ := tc.sandbox.Open("", Timeouts{})
			said := sess.(refusingSession).detail // the words it refused in, kept with the example
			want := door.Tally{Stricter: map[string]int64{tc.wantReason: 1}, StricterExamples: map[string]string{tc.wantReason: op}, StricterSaid: map[string]string{tc.wantReason: said},
				Passed: tc.passed, CountsPassed: true, Kinds: kinds}
			if diff := cmp.Diff(want, got, ignoreWords); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
			for _, promises := range [][]string{{tc.wantReason}, {PromisesAll}} {
				a.Promises = promises
				found, got := checkCounted(t, a, stricterWorld+tc.ops)
				if inv := invariants(found); len(inv) == 0 || inv[0] != "verdict-matches-model" {
					t.Errorf("promising %v: findings %v, want verdict-matches-model first", promises, inv)
				}
				if len(got.Stricter) != 0 {
					t.Errorf("promising %v: counted %v, want nothing", promises, got.Stricter)
				}
			}
			if found, _ := checkCounted(t, tc.sandbox, stricterWorld+tc.ops); len(found) == 0 {
				t.Errorf("os.Root's adapter (promises all): no finding")
			}
		})
	}
}

// TestNotStricter: a refusal where the model refuses too, a looser answer
// (not found where the model denies), and a refusal that changed the tree
// are judged as ever, promises or not.
func TestNotStricter(t *testing.T) {
	for _, tc := range []struct {
		name, ops, want string
		sandbox         Adapter
	}{
		{"not found where the model denies", "fs_read /etc/secret\n", "verdict-matches-model", refuses(realfs.NotFound, "ENOENT", "/etc/secret")},
		{"a refusal that wrote", "fs_write /work/out/x y\n", "no-effect-on-denial",
			withDefect(func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				out.Verdict = realfs.Denied // after os.Root wrote
				return out, nil
			})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.sandbox
			a.Promises = nil
			found, got := checkCounted(t, a, stricterWorld+tc.ops)
			if inv := invariants(found); len(inv) == 0 || inv[0] != tc.want {
				t.Errorf("findings %v, want %s first", inv, tc.want)
			}
			if len(got.Stricter) != 0 {
				t.Errorf("counted %v, want nothing", got.Stricter)
			}
		})
	}
}

// TestRefusalsLetThroughCounted: the ops the model refuses for the grant
// are counted, and those of them the sandbox let through: none for
// os.Root's sandbox, each for one that answers every op it refuses as
// allowed; one that answers them not found is counted neither way (it
// may have looked and found nothing, or hidden them, as a mount namespace
// does); an op the model allows and the sandbox let through is counted
// apart (Passed).
func TestRefusalsLetThroughCounted(t *testing.T) {
	const ops = "fs_read /etc/secret\nfs_read /work/../etc/secret\nfs_write /etc/x y\nfs_read /work/a.txt\n"
	answers := func(v realfs.Verdict) Adapter {
		return withDefect(func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
			if out.Verdict == realfs.Denied {
				out.Verdict, out.Data = v, ""
			}
			return out, nil
		})
	}
	for _, tc := range []struct {
		name             string
		sandbox          Adapter
		refused, through int64
	}{{"os.Root", OSRoot, 3, 0}, {"one that allows all", answers(realfs.Allowed), 3, 3}, {"one that hides all", answers(realfs.NotFound), 0, 0}} {
		_, got := checkCounted(t, tc.sandbox, stricterWorld+ops)
		if got.Refused != tc.refused || got.LetThrough != tc.through || got.Passed != 1 {
			t.Errorf("%s: %d refused, %d of them let through, %d allowed let through; want %d, %d and 1", tc.name, got.Refused, got.LetThrough, got.Passed, tc.refused, tc.through)
		}
		// The write is one of the refused ops, the reads the rest.
		reads, writes := got.Kinds[core.OpRead], got.Kinds[core.OpWrite]
		if reads.Passed != 1 || reads.Refused+writes.Refused != tc.refused || writes.Refused != min(tc.refused, 1) || writes.LetThrough != min(tc.through, 1) {
			t.Errorf("%s: by kind %+v, want the read passed counted under fs_read and the write refused under fs_write", tc.name, got.Kinds)
		}
	}
}

// TestStricterCountsRunsOnly: the replay of a check meets the same ops as
// its run; a stricter op is counted once per check, not twice.
func TestStricterCountsRunsOnly(t *testing.T) {
	a := refuses(realfs.Denied, "no", "/work/a.txt")
	a.Promises = nil
	_, got := checkCounted(t, a, stricterWorld+"fs_read /work/a.txt\nfs_read /work/a.txt\nfs_read /work/al\n")
	want := door.Tally{Stricter: map[string]int64{ReasonOther: 2}, StricterExamples: map[string]string{ReasonOther: "fs_read /work/a.txt"}, StricterSaid: map[string]string{ReasonOther: "no"}, Passed: 1, CountsPassed: true,
		Kinds: map[string]door.OpCounts{core.OpRead: {Stricter: 2, Passed: 1}}}
	if diff := cmp.Diff(want, got, ignoreWords); diff != "" {
		t.Errorf("tally (-want +got):\n%s", diff)
	}
}

// TestWholeReadsAreCounted: a read the driver answered with text it found
// no content in (a profile whose result or refusals do not fit the
// server) is counted, with the least such answer, so that the run can say
// why the findings that follow may be the profile's; the replay's reads
// are not counted again.
func TestWholeReadsAreCounted(t *testing.T) {
	a := OSRoot
	a.Open = func(string, Timeouts) (Session, error) { return wholeSession{}, nil }
	_, got := checkCounted(t, a, stricterWorld+"fs_read /work/a.txt\nfs_read /etc/secret\n")
	if got.Whole != 2 || got.WholeExample != "Error: /etc/secret is outside" {
		t.Errorf("counted %d whole reads, the least %q; want 2, \"Error: /etc/secret is outside\"", got.Whole, got.WholeExample)
	}
}

type wholeSession struct{}

func (wholeSession) Close() error { return nil }

func (wholeSession) Driver(t *realfs.Tree, g core.GrantSpec, ws scenario.WorldSpec) (realfs.Driver, error) {
	d, err := osRootSession{}.Driver(t, g, ws)
	return wholeReads{d}, err
}

// wholeReads answers every read with an error text it took for content.
type wholeReads struct{ realfs.Driver }

func (d wholeReads) Do(op core.Op) (realfs.Outcome, error) {
	if op.Kind != core.OpRead {
		return d.Driver.Do(op)
	}
	return realfs.Outcome{Verdict: realfs.Allowed, Data: "Error: " + op.Args[0] + " is outside", Whole: true}, nil
}

// TestNotFoundIsNotPassed: a server that cannot see its tree answers
// every op not_found; where the model finds nothing either, that is no op
// let through (Passed), or a server that opened no file at all would read
// as one that let the ops the model allows through, and no warning would
// say its profile does not fit it.
func TestNotFoundIsNotPassed(t *testing.T) {
	blind := withDefect(func(*defective, core.Op, realfs.Outcome) (realfs.Outcome, error) {
		return realfs.Outcome{Verdict: realfs.NotFound}, nil
	})
	_, got := checkCounted(t, blind, stricterWorld+"fs_read /work/none\nfs_read /work/out/none\n")
	if got.Passed != 0 {
		t.Errorf("a server that finds nothing: %d ops let through, want 0", got.Passed)
	}
	_, got = checkCounted(t, OSRoot, stricterWorld+"fs_read /work/none\nfs_read /work/a.txt\n")
	if got.Passed != 1 {
		t.Errorf("os.Root: %d ops let through, want 1 (the read of a.txt)", got.Passed)
	}
}

// TestWriteSaidDoneThatWroteNothing: a write the sandbox answers ok but
// did not do is a verdict-matches-model finding at that write, saying what
// the file holds: a new file gone again, an old one left as it was. A
// write done, or one of the bytes a file already held, is none.
func TestWriteSaidDoneThatWroteNothing(t *testing.T) {
	undoes := func(restore string) Adapter {
		return withDefect(func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
			if op.Kind != core.OpWrite {
				return out, nil
			}
			switch p := onDisk(d, op.Args[0]); {
			case restore == "":
				os.Remove(p)
			default:
				os.WriteFile(p, []byte(restore), 0o644)
			}
			return realfs.Outcome{Verdict: realfs.Allowed}, nil
		})
	}
	for _, tc := range []struct {
		name, ops string
		sandbox   Adapter
		want      string // "" for no finding
	}{
		{"a new file gone", "fs_write /work/out/new.txt y\n", undoes(""), `fs_write /work/out/new.txt y returned ok as the model does, but left "/work/out/new.txt" empty or with no file where the model of SPEC §5 writes "y"`},
		{"an old file left", "fs_write /work/out/sub/keep y\n", undoes("k"), `left "/work/out/sub/keep" holding "k" where the model of SPEC §5 writes "y"`},
		{"written", "fs_write /work/out/sub/keep y\n", OSRoot, ""},
		{"the bytes it held", "fs_write /work/out/sub/keep k\n", undoes("k"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found := check(t, tc.sandbox, stricterWorld+tc.ops)
			switch {
			case tc.want == "" && len(found) > 0:
				t.Errorf("findings %v, want none", found)
			case tc.want != "" && (len(found) == 0 || found[0].Invariant != oracle.VerdictMatchesModel || !strings.Contains(found[0].Detail, tc.want)):
				t.Errorf("findings %v, want verdict-matches-model saying %q", found, tc.want)
			}
		})
	}
}

// TestTreePathInAFileWritten: a sandbox that writes, beside a file, the
// absolute path it wrote it at (an artifact's metadata) writes another
// path in its replay's tree; the tree's root is cut out of what is
// journaled, as it is out of answers, and no replay differs.
func TestTreePathInAFileWritten(t *testing.T) {
	notes := withDefect(func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
		if op.Kind == core.OpWrite && out.Verdict == realfs.Allowed {
			os.WriteFile(onDisk(d, "/work/out/meta"), []byte(`{"uri": "`+onDisk(d, op.Args[0])+`"}`), 0o644)
		}
		return out, nil
	})
	if found := check(t, notes, stricterWorld+"fs_write /work/out/x y\n"); len(found) > 0 {
		t.Errorf("findings %v, want none", found)
	}
}
