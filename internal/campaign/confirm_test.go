package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// hangsOnce is the reference, except that the first op any sandbox of its
// target runs blocks until the sandbox is closed: a server that missed the
// timeout once, on a busy machine, and answers ever after.
type hangsOnce struct {
	*core.Reference
	first  *atomic.Bool // shared by the target's sandboxes: set by the op that hangs
	closed chan struct{}
	once   sync.Once
}

func (s *hangsOnce) Run(op core.Op) core.Result {
	if s.first.CompareAndSwap(false, true) {
		<-s.closed
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

func (s *hangsOnce) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

// hangsOnceTarget is a target of hangsOnce sandboxes, whose hangs are
// confirmed as a real sandbox's are when confirm is set.
func hangsOnceTarget(confirm bool) sut.Target {
	first := new(atomic.Bool)
	t := sut.Static("hangs-once", func(g core.Grant, w core.World) (core.Sandbox, error) {
		return &hangsOnce{Reference: core.NewReference(g, w), first: first, closed: make(chan struct{})}, nil
	})
	t.ConfirmHangs = confirm
	return t
}

// TestUnconfirmedHangIsNotAFinding: on a sandbox whose hangs are confirmed
// (a real one), an op that hung once is judged once more on a fresh
// session with the full timeout; when it answers there, the hang is no
// finding, and the result counts it. On another sandbox the same hang is
// a total finding, as before. The timeout is only waited for, never raced.
func TestUnconfirmedHangIsNotAFinding(t *testing.T) {
	cfg := Config{Seed: 1, Checks: 5, Workers: 1, Timeout: 100 * time.Millisecond}
	cfg.Target = hangsOnceTarget(true)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || res.UnconfirmedHangs != 1 || res.Raw != 1 {
		t.Fatalf("%d findings (%v), %d unconfirmed hangs, %d raw; want none, 1 unconfirmed of 1 raw", len(res.Findings), res.Findings, res.UnconfirmedHangs, res.Raw)
	}
	if sum := Summarize(res, "hangs-once"); sum.UnconfirmedHangs != 1 || sum.Failed() {
		t.Errorf("summary: %d unconfirmed hangs, failed %v; want 1, not failed", sum.UnconfirmedHangs, sum.Failed())
	}
	cfg.Target = hangsOnceTarget(false)
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].Invariant != oracle.Total || !strings.Contains(res.Findings[0].Detail, "did not return within") || res.UnconfirmedHangs != 0 {
		t.Fatalf("a sandbox whose hangs are not confirmed: %d findings, %d unconfirmed hangs; want the hang as a finding", len(res.Findings), res.UnconfirmedHangs)
	}
}

// startTimeout is a start timeout's error, as a door's says it is one.
type startTimeout struct{}

func (startTimeout) Error() string { return "initialize: the MCP server did not answer within 1m0s" }
func (startTimeout) Timeout() bool { return true }

// TestUnconfirmedStartTimeoutIsNotAFinding: a sandbox whose hangs are
// confirmed and whose first build timed out (a server slow to start on a
// busy machine) is judged once more on a fresh session: it starts there,
// so the timeout is no finding, and the result counts it as unconfirmed.
func TestUnconfirmedStartTimeoutIsNotAFinding(t *testing.T) {
	first := new(atomic.Bool)
	target := sut.Static("slow-start", func(g core.Grant, w core.World) (core.Sandbox, error) {
		if first.CompareAndSwap(false, true) {
			return nil, startTimeout{}
		}
		return core.NewReference(g, w), nil
	})
	target.ConfirmHangs = true
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 5, Workers: 1, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || res.UnconfirmedHangs != 1 {
		t.Fatalf("%d findings (%v), %d unconfirmed hangs; want none, 1 unconfirmed", len(res.Findings), res.Findings, res.UnconfirmedHangs)
	}
}

// failsFirst is a target whose first sandbox fails its first op (a panic,
// a total finding) and whose every other sandbox is the reference: a
// finding that does not reproduce.
func failsFirst() sut.Target {
	first := new(atomic.Bool)
	return sut.Static("fails-first", func(g core.Grant, w core.World) (core.Sandbox, error) {
		if first.CompareAndSwap(false, true) {
			return panicsOnRun{core.NewReference(g, w)}, nil
		}
		return core.NewReference(g, w), nil
	})
}

type panicsOnRun struct{ *core.Reference }

func (panicsOnRun) Run(core.Op) core.Result { panic("the first sandbox breaks once") }

// TestFlakyFindingInTheSummary: a finding that fails only on its first
// judgement is kept with the words of that run, marked flaky in the
// summary and its JSON, counted, and does not fail the campaign.
func TestFlakyFindingInTheSummary(t *testing.T) {
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 3, Workers: 1, Target: failsFirst()})
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(res, "fails-first")
	if len(sum.Findings) != 1 || !sum.Findings[0].Flaky || sum.FlakyFindings != 1 || sum.Failed() ||
		!strings.Contains(sum.Findings[0].Detail, "the first sandbox breaks once") {
		t.Fatalf("findings %+v, %d flaky, failed %v; want one flaky finding with its first words, not failed", sum.Findings, sum.FlakyFindings, sum.Failed())
	}
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"flaky":true`, `"flaky_findings":1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the JSON summary lacks %s: %s", want, b)
		}
	}
}

// TestFlakyEscapesInTheSummary: of the flaky findings, those of
// confinement and no-internal-egress are counted as escapes, in the JSON
// too, and make the summary a failure; a flaky finding of another
// invariant does not.
func TestFlakyEscapesInTheSummary(t *testing.T) {
	sc := &scenario.Scenario{}
	flaky := func(id oracle.ID, stateful bool) Finding {
		return Finding{Finding: &finding.Finding{Invariant: id, Flaky: !stateful, Stateful: stateful, Original: sc, Minimized: sc}}
	}
	for _, tc := range []struct {
		findings []Finding
		escapes  int
		failed   bool
	}{
		{[]Finding{flaky(oracle.Total, false), flaky(oracle.VerdictMatchesModel, true)}, 0, false},
		{[]Finding{flaky(oracle.NoInternalEgress, false)}, 1, true},
		{[]Finding{flaky(oracle.Total, false), flaky(oracle.Confinement, true)}, 1, true},
	} {
		sum := Summarize(&Result{Findings: tc.findings}, "x")
		b, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`"flaky_escapes":%d`, tc.escapes)
		if tc.escapes == 0 {
			want = `"flaky_findings":2`
		}
		if sum.FlakyEscapes != tc.escapes || sum.Failed() != tc.failed || !strings.Contains(string(b), want) {
			t.Errorf("%d findings: %d escapes, failed %v, JSON %s; want %d, %v, %s", len(tc.findings), sum.FlakyEscapes, sum.Failed(), b, tc.escapes, tc.failed, want)
		}
	}
}

// TestSummaryDetailIsTheFilesWords: a finding's summary line (and its
// JSON) gives the oracle's words on the minimized scenario its file holds,
// which minimizing may have moved to another cause than the one found
// first; a finding not minimized keeps the words it was found with.
func TestSummaryDetailIsTheFilesWords(t *testing.T) {
	sc := &scenario.Scenario{}
	found := func(detail, minDetail string) Finding {
		return Finding{Finding: &finding.Finding{Invariant: oracle.Confinement, Detail: detail, MinDetail: minDetail, Original: sc, Minimized: sc}}
	}
	res := &Result{Findings: []Finding{
		found("net_fetch r.example /data returned not_found", "net_fetch R.EXAMPLE / gives egress_denied"),
		found("as found", ""),
	}}
	sum := Summarize(res, "test")
	var got []string
	for _, f := range sum.Findings {
		got = append(got, f.Detail)
	}
	if want := []string{"net_fetch R.EXAMPLE / gives egress_denied", "as found"}; !slices.Equal(got, want) {
		t.Errorf("summary details %q, want %q", got, want)
	}
}

// TestHangLeftUnconfirmedAtStop: a hang on a sandbox whose hangs are
// confirmed, written because the campaign stopped while a fresh session
// was judging it again, is marked unconfirmed, its header says so, and it
// does not fail the campaign: on a busy machine a slow server misses the
// op timeout.
func TestHangLeftUnconfirmedAtStop(t *testing.T) {
	first := new(atomic.Bool)
	blocked := make(chan struct{}) // closed when the fresh session's sandbox is being built
	var starts atomic.Int64
	target := sut.Target{Name: "hangs-then-slow", ConfirmHangs: true, Start: func() (core.Factory, func() error, error) {
		if starts.Add(1) == 1 {
			return func(g core.Grant, w core.World) (core.Sandbox, error) {
				return &hangsOnce{Reference: core.NewReference(g, w), first: first, closed: make(chan struct{})}, nil
			}, func() error { return nil }, nil
		}
		ended := make(chan struct{})
		end := sync.OnceFunc(func() { close(ended) })
		var once sync.Once
		return func(core.Grant, core.World) (core.Sandbox, error) { // a server slow to start: until its session ends
			once.Do(func() { close(blocked) })
			<-ended
			return nil, errors.New("ended before it started")
		}, func() error { end(); return nil }, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *Result, 1)
	go func() {
		res, err := Run(ctx, Config{Seed: 1, Checks: 5, Workers: 1, Target: target, Timeout: 100 * time.Millisecond, Out: t.TempDir()})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-blocked: // the fresh session judging the hang again is still starting
	case <-time.After(stopPatience):
		t.Fatalf("the hang was not judged again within %v", stopPatience)
	}
	cancel()
	res := <-done
	if res == nil {
		return
	}
	if len(res.Findings) != 1 || !res.Findings[0].Unconfirmed || !res.Findings[0].Unminimized || res.Findings[0].Invariant != oracle.Total {
		t.Fatalf("findings %+v; want the one hang, not minimized and unconfirmed", res.Findings)
	}
	src, err := os.ReadFile(res.Findings[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "not judged again: the campaign stopped before a fresh sandbox judged this timeout") {
		t.Errorf("the header does not say the hang is unconfirmed:\n%s", src)
	}
	if sum := Summarize(res, "hangs-then-slow"); sum.UnconfirmedFindings != 1 || sum.Failed() || !sum.Findings[0].Unconfirmed {
		t.Errorf("summary: %d unconfirmed findings, failed %v; want 1, not failed", sum.UnconfirmedFindings, sum.Failed())
	}
}

// TestStopAtFirstGoesPastAnUnconfirmedHang: under StopAtFirst, a hang of a
// sandbox whose hangs are confirmed that a fresh session answers in time
// does not end the campaign: it goes on to its real first finding, the one
// finding it writes, and fails.
func TestStopAtFirstGoesPastAnUnconfirmedHang(t *testing.T) {
	first := new(atomic.Bool)
	target := sut.Static("hangs-once-broken", func(g core.Grant, w core.World) (core.Sandbox, error) {
		sb, _ := readsEverything(g, w)
		return &hangsOnce{Reference: sb.(*core.Reference), first: first, closed: make(chan struct{})}, nil
	})
	target.ConfirmHangs = true
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 300, Workers: 1, Timeout: 100 * time.Millisecond, Target: target, StopAtFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(res, "x")
	if len(res.Findings) != 1 || isHang(res.Findings[0]) || res.UnconfirmedHangs != 1 || !sum.Failed() {
		t.Fatalf("%d findings (%v), %d unconfirmed hangs, %d checks; want the one real finding after 1 unconfirmed hang, failed", len(res.Findings), res.Findings, res.UnconfirmedHangs, res.Checks)
	}
	if res.Checks >= 300 {
		t.Errorf("%d checks: the campaign did not stop at its finding", res.Checks)
	}
}

// hangsAlways is the reference, except that every op blocks until the
// sandbox is closed: a server that is hung for good.
type hangsAlways struct {
	*core.Reference
	closed chan struct{}
	once   sync.Once
}

func (s *hangsAlways) Run(core.Op) core.Result { <-s.closed; return core.Result{Kind: core.NotFound} }

func (s *hangsAlways) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

// TestStopAtFirstEndsAtAConfirmedHang: under StopAtFirst, a hang a fresh
// session confirms is the campaign's one finding, and it ends there.
func TestStopAtFirstEndsAtAConfirmedHang(t *testing.T) {
	target := sut.Static("hangs-always", func(g core.Grant, w core.World) (core.Sandbox, error) {
		return &hangsAlways{Reference: core.NewReference(g, w), closed: make(chan struct{})}, nil
	})
	target.ConfirmHangs = true
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 300, Workers: 1, Timeout: 100 * time.Millisecond, Target: target, StopAtFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || !isHang(res.Findings[0]) || res.Findings[0].Unconfirmed || res.Checks >= 300 {
		t.Fatalf("%d findings (%v), %d checks of 300; want the confirmed hang alone, the campaign stopped there", len(res.Findings), res.Findings, res.Checks)
	}
}

// isHang reports whether f is a finding of an op that did not return in
// time.
func isHang(f Finding) bool {
	return f.Invariant == oracle.Total && strings.Contains(f.Detail, "did not return within")
}

// slowAtFirst is the reference, except that it blocks until closed at the
// first op of the first few sandboxes its campaign's own session builds (a
// busy machine's missed timeouts, which a fresh session does not repeat),
// and, after those (so that the spurious hangs come first, whatever a
// seed draws), at a fetch from webhook.site (a real hang, which every
// session repeats).
type slowAtFirst struct {
	*core.Reference
	slow   bool // the first op hangs
	real   bool // a fetch from webhook.site hangs
	ran    bool
	closed chan struct{}
	once   sync.Once
}

func (s *slowAtFirst) Run(op core.Op) core.Result {
	first := !s.ran
	s.ran = true
	if first && s.slow || s.real && op.Kind == core.OpFetch && len(op.Args) > 0 && op.Args[0] == "webhook.site" {
		<-s.closed
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

func (s *slowAtFirst) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

// slowAtFirstTarget is a target of slowAtFirst sandboxes whose hangs are
// confirmed: the first session started is the campaign's, whose first
// spurious sandboxes are slow; every later one is a fresh session that
// judges a hang again. Fetches from webhook.site hang only once the
// campaign's session has built its slow ones, in it and in the fresh
// sessions started after: the spurious hangs come first, and none is
// confirmed by a real hang later in its scenario, whatever a seed draws.
func slowAtFirstTarget(spurious int64) sut.Target {
	var starts, built atomic.Int64 // built: the campaign session's sandboxes
	return sut.Target{Name: "slow-at-first", ConfirmHangs: true, Start: func() (core.Factory, func() error, error) {
		campaigns := starts.Add(1) == 1
		realNow := built.Load() > spurious
		return func(g core.Grant, w core.World) (core.Sandbox, error) {
			slow, real := false, realNow
			if campaigns {
				n := built.Add(1)
				slow, real = n <= spurious, n > spurious
			}
			return &slowAtFirst{Reference: core.NewReference(g, w), slow: slow, real: real, closed: make(chan struct{})}, nil
		}, func() error { return nil }, nil
	}}
}

// TestUnconfirmedHangsLeaveRoomForARealOne: hangs a fresh session does not
// repeat (more of them than an invariant keeps findings of) do not take
// the places of a later hang that it does repeat: the real one is found,
// and under StopAtFirst the campaign ends there.
func TestUnconfirmedHangsLeaveRoomForARealOne(t *testing.T) {
	for _, first := range []bool{false, true} {
		res, err := Run(context.Background(), Config{Seed: 1, Checks: 300, Workers: 1, Timeout: 100 * time.Millisecond, Target: slowAtFirstTarget(2*MaxPerInvariant + 2), StopAtFirst: first})
		if err != nil {
			t.Fatal(err)
		}
		confirmed := slices.IndexFunc(res.Findings, func(f Finding) bool { return isHang(f) && !f.Unconfirmed })
		if confirmed < 0 || res.UnconfirmedHangs < MaxPerInvariant {
			t.Fatalf("StopAtFirst %v: %d findings (%+v), %d unconfirmed hangs, %d checks; want a confirmed hang after at least %d unconfirmed", first, len(res.Findings), findingWords(res.Findings), res.UnconfirmedHangs, res.Checks, MaxPerInvariant)
		}
		if first && (len(res.Findings) != 1 || res.Checks >= 300) {
			t.Errorf("StopAtFirst: %d findings, %d checks of 300; want the confirmed hang alone, the campaign stopped there", len(res.Findings), res.Checks)
		}
	}
}

// findingWords is each finding's invariant and detail, for a failure's message.
func findingWords(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("check %d %s: %s (unconfirmed %v)", f.Check, f.Invariant, f.Detail, f.Unconfirmed))
	}
	return out
}
