package cli

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/reports"
)

// onceTargets are two sandboxes that fail only the first time: "fails-first",
// whose first sandbox panics on its first op (a total finding that does
// not reproduce), and "hangs-first", whose first op hangs until the
// sandbox is closed, its hangs confirmed as a real sandbox's are. Each
// call makes them afresh.
func onceTargets() []sut.Target {
	failed, hung := new(atomic.Bool), new(atomic.Bool)
	fails := sut.Static("fails-first", func(g core.Grant, w core.World) (core.Sandbox, error) {
		if failed.CompareAndSwap(false, true) {
			return panicsOnce{core.NewReference(g, w)}, nil
		}
		return core.NewReference(g, w), nil
	})
	hangs := sut.Static("hangs-first", func(g core.Grant, w core.World) (core.Sandbox, error) {
		return &hangsFirst{Reference: core.NewReference(g, w), hung: hung, closed: make(chan struct{})}, nil
	})
	hangs.ConfirmHangs = true
	return []sut.Target{fails, hangs}
}

type panicsOnce struct{ *core.Reference }

func (panicsOnce) Run(core.Op) core.Result { panic("the first sandbox breaks once") }

type hangsFirst struct {
	*core.Reference
	hung   *atomic.Bool
	closed chan struct{}
	once   sync.Once
}

func (s *hangsFirst) Run(op core.Op) core.Result {
	if s.hung.CompareAndSwap(false, true) {
		<-s.closed
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

func (s *hangsFirst) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

func runOnce(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := Main(args, &out, &errb, func(string) string { return "" }, onceTargets()...)
	return st, out.String(), errb.String()
}

// TestFlakyFindingsExit0: a finding that fails only on its first
// judgement is written, said to be flaky on stdout, in the summary line
// and in the JSON summary (with its count and the words of the run that
// found it), and the campaign exits 0 when it is the only one.
func TestFlakyFindingsExit0(t *testing.T) {
	dir := t.TempDir()
	st, out, errs := runOnce(t, "run", "--sut", "fails-first", "--checks", "3", "--workers", "1", "--out", dir)
	if st != ExitOK || !strings.Contains(errs, "1 findings (the 1 flaky: none failed again when judged again, so the exit status is 0)") ||
		!strings.Contains(out, "not minimized: flaky") || !strings.Contains(out, "the first sandbox breaks once") {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errs)
	}
	st, out, errs = runOnce(t, "run", "--sut", "fails-first", "--checks", "3", "--workers", "1", "--out", dir, "--format", "json")
	var sum reports.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("status %d, %v\n%s%s", st, err, out, errs)
	}
	if st != ExitOK || sum.FlakyFindings != 1 || len(sum.Findings) != 1 || !sum.Findings[0].Flaky || !strings.Contains(out, `"flaky": true`) {
		t.Errorf("--format json: status %d, %d flaky\n%s", st, sum.FlakyFindings, out)
	}
}

// escapesOnce is the reference but for its first refused read in the
// process, which it answers as a sandbox that reads everything does: an
// escape that a replay does not meet again (a cache kept from an earlier
// scenario, a race).
type escapesOnce struct {
	*core.Reference
	g       core.Grant
	w       core.World
	escaped *atomic.Bool
}

func (s *escapesOnce) Run(op core.Op) core.Result {
	res := s.Reference.Run(op) // charged as the reference charges it, whatever comes after
	if res.Kind == core.FSReadDenied && outside(op.Args[0], s.g.FSRead()) && s.escaped.CompareAndSwap(false, true) {
		// Read all the same, once: the world journals the read.
		if data, ok := s.w.Read(path.Clean(op.Args[0])); ok {
			return core.Result{Kind: core.OK, Data: data}
		}
		return core.Result{Kind: core.NotFound}
	}
	return res
}

// outside reports whether p, an absolute path with no ".." segment, lies
// under none of roots, which SPEC §5 refuses before any world call.
func outside(p string, roots []string) bool {
	if !strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
		return false
	}
	return !slices.ContainsFunc(roots, func(r string) bool {
		r = strings.TrimSuffix(path.Clean(r), "/")
		return path.Clean(p) == r || strings.HasPrefix(path.Clean(p), r+"/")
	})
}

// TestFlakyEscapesExit1: a confinement finding that does not fail again
// is flaky, and makes the exit status 1 all the same: the sandbox read
// outside its grant once.
func TestFlakyEscapesExit1(t *testing.T) {
	escaped := new(atomic.Bool)
	target := sut.Static("escapes-once", func(g core.Grant, w core.World) (core.Sandbox, error) {
		return &escapesOnce{Reference: core.NewReference(g, w), g: g, w: w, escaped: escaped}, nil
	})
	var out, errb bytes.Buffer
	st := Main([]string{"run", "--sut", "escapes-once", "--checks", "200", "--workers", "1", "--out", t.TempDir()}, &out, &errb, func(string) string { return "" }, target)
	if st != ExitFinding || !strings.Contains(errb.String(), "of confinement or no-internal-egress, an escape the sandbox made once, which makes the exit status 1 all the same)") ||
		!strings.Contains(out.String(), "confinement") {
		t.Errorf("status %d, want 1\nstdout:\n%s\nstderr:\n%s", st, out.String(), errb.String())
	}
}

// TestUnconfirmedHangsInTheSummary: on a sandbox whose hangs are
// confirmed (a real one), an op that timed out once and is answered by a
// fresh session is no finding: exit 0, and the summary line counts it.
func TestUnconfirmedHangsInTheSummary(t *testing.T) {
	st, out, errs := runOnce(t, "run", "--sut", "hangs-first", "--timeout", "100ms", "--checks", "3", "--workers", "1", "--out", t.TempDir())
	if st != ExitOK || !strings.Contains(errs, "0 findings; 1 op timeouts not confirmed by a fresh sandbox") {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", st, out, errs)
	}
}

// TestViolationsSeen: the summary line counts the violations seen when
// more than the findings written, and not when a campaign stopped at its
// first on purpose.
func TestViolationsSeen(t *testing.T) {
	two := []reports.Finding{{}, {}}
	for _, tc := range []struct {
		raw, causes int64
		first       bool
		want        string
	}{
		{2, 1, false, ""},
		{111, 9, false, "; 111 violations of 9 causes seen in all; written: the first of each cause while its invariant had room, 4 findings of each (--per-invariant N for more)"},
		{111, 0, false, "; 111 violations seen in all; written: the first of each cause while its invariant had room, 4 findings of each (--per-invariant N for more)"},
		{97, 1, false, "; 97 violations of 1 cause seen in all; written: the first of each cause while its invariant had room, 4 findings of each (--per-invariant N for more)"},
		{111, 9, true, ""},
		{20000, 257, false, "; 20000 violations of more than 256 causes seen in all; written: the first of each cause while its invariant had room, 4 findings of each (--per-invariant N for more)"},
	} {
		if got := violationsSeen(reports.Summary{RawFindings: tc.raw, ViolationCauses: tc.causes, Findings: two}, tc.first, 4); got != tc.want {
			t.Errorf("%d raw, stop at first %v: %q, want %q", tc.raw, tc.first, got, tc.want)
		}
	}
}

// TestPrintUnwritten: the causes no finding was written for are listed
// after the findings, each with the invariants it violated, an attack
// class said to be one; none, no line.
func TestPrintUnwritten(t *testing.T) {
	causes := []reports.Cause{
		{Cause: "name of loopback", Violations: 40, FirstCheck: 1, Written: true},
		{Cause: "an address in NAT64 form", Violations: 12, FirstCheck: 9, Invariants: []string{"no-internal-egress", "verdict-matches-model"}},
		{Cause: "benign", Class: true, Violations: 1, FirstCheck: 30, Invariants: []string{"total"}},
	}
	var b strings.Builder
	printUnwritten(&b, causes, 4)
	want := "2 more causes, not written (each invariant's 4 findings went to earlier ones; --per-invariant 16 writes more):\n" +
		"  [an address in NAT64 form] no-internal-egress, verdict-matches-model: violations 12, the first at check 9\n" +
		"  [ops of attack class benign] total: violations 1, the first at check 30\n"
	if b.String() != want {
		t.Errorf("printUnwritten wrote\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	printUnwritten(&b, causes, maxPerInvariant)
	if !strings.HasPrefix(b.String(), "2 more causes, not written (each invariant's 64 findings went to earlier ones):\n") {
		t.Errorf("at the most findings an invariant can have, printUnwritten wrote\n%s", b.String())
	}
	b.Reset()
	printUnwritten(&b, causes[:1], 4)
	if b.Len() != 0 {
		t.Errorf("every cause written: printUnwritten wrote %q", b.String())
	}
}

// TestProgressReporter: where stderr is no terminal, --progress writes a
// line of its own once each period, however the ticks fall, and nothing
// without it; on a terminal a line is shown in place at every tick.
func TestProgressReporter(t *testing.T) {
	ticks := []time.Duration{900 * time.Millisecond, 1001 * time.Millisecond, 1500 * time.Millisecond, 2002 * time.Millisecond, 5200 * time.Millisecond, 5900 * time.Millisecond}
	for _, tc := range []struct {
		terminal bool
		every    time.Duration
		lines    int
	}{{false, time.Second, 3}, {false, 2 * time.Second, 2}, {false, 0, 0}, {true, 0, 6}} {
		var b strings.Builder
		if r := progressReporter(&b, tc.terminal, tc.every); r != nil {
			for _, e := range ticks {
				r(campaign.Progress{Checks: 3, Ops: 9, Elapsed: e})
			}
		}
		n := strings.Count(b.String(), "\n")
		if tc.terminal {
			n = strings.Count(b.String(), "\r")
		}
		if n != tc.lines || tc.lines > 0 && !strings.Contains(b.String(), "checks 3  ops 9") {
			t.Errorf("terminal %v, every %v: wrote %q, want %d lines", tc.terminal, tc.every, b.String(), tc.lines)
		}
	}
}
