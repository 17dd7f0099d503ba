package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// hangsOnTools is the reference, except that tool ops block until the
// sandbox is closed; slowOps is the reference, 2 ms an op.
type (
	hangsOnTools struct {
		*core.Reference
		closed chan struct{}
		once   *sync.Once
	}
	slowOps struct{ *core.Reference }
)

func (s hangsOnTools) Run(op core.Op) core.Result {
	if op.Kind == core.OpTool {
		<-s.closed
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

func (s hangsOnTools) Close() error { s.once.Do(func() { close(s.closed) }); return nil }

func (s slowOps) Run(op core.Op) core.Result {
	time.Sleep(2 * time.Millisecond)
	return s.Reference.Run(op)
}

var timeoutTargets = []sut.Target{
	sut.Static("hangs", func(g core.Grant, w core.World) (core.Sandbox, error) {
		return hangsOnTools{core.NewReference(g, w), make(chan struct{}), new(sync.Once)}, nil
	}),
	sut.Static("slow", func(g core.Grant, w core.World) (core.Sandbox, error) {
		return slowOps{core.NewReference(g, w)}, nil
	}),
}

func runWith(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	st := Main(args, &out, &errb, func(string) string { return "" }, timeoutTargets...)
	return st, out.String(), errb.String()
}

// TestTimeoutIsPerOp: --timeout bounds each op, not the scenario: 200 ops
// of 2 ms each take 0.4 s, eight times a 50 ms timeout, and are no hang;
// a tool op that never returns is a total finding on that op. It runs in
// a synctest bubble (synctest.Test), whose clock moves only when every
// goroutine in it waits: an op takes no time but its sleep, however loaded
// the machine, so none is taken for a hang, and the times are exact.
func TestTimeoutIsPerOp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		var b strings.Builder
		b.WriteString("grant fs_read /work/\ngrant tool echo\nfile /work/a hello\n\n")
		for range 200 {
			b.WriteString("fs_read /work/a\n")
		}
		long := writeFile(t, dir, "long.sbx", b.String())
		if st, _, errs := runWith(t, "replay", "--sut", "slow", "--timeout", "50ms", long); st != ExitOK {
			t.Fatalf("a long scenario of quick ops: status %d\n%s", st, errs)
		}
		hang := writeFile(t, dir, "hang.sbx", "grant tool echo\nfs_read /x\ntool echo hi\n")
		start := time.Now()
		st, out, errs := runWith(t, "replay", "--sut", "hangs", "--timeout", "50ms", hang)
		if st != ExitFinding || !strings.Contains(out+errs, "total: step 2: tool echo hi did not return within 50ms") {
			t.Fatalf("a hang: status %d\n%s%s", st, out, errs)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("replaying a hang with a 50 ms timeout took %v", took)
		}
		if st, _, errs := runWith(t, "replay", "--timeout", "0s", hang); st != ExitUsage || !strings.Contains(errs, "--timeout") {
			t.Errorf("--timeout 0s: status %d, %s", st, errs)
		}
	})
}

// TestCampaignAgainstAHangingSandbox: a campaign whose sandbox hangs on
// every tool op finds it, minimizes it to the one op, and ends. It runs on
// the machine's clock (a campaign listens for signals, which cannot be
// done in a synctest bubble); its bound only catches a minimization of
// hangs that finding.HangTime does not bound, far above what a loaded
// machine takes.
func TestCampaignAgainstAHangingSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a campaign whose hangs are minimized takes seconds")
	}
	out := t.TempDir()
	start := time.Now()
	st, stdout, errs := runWith(t, "run", "--sut", "hangs", "--timeout", "100ms", "--checks", "40", "--out", out)
	took := time.Since(start)
	if st != ExitFinding || !strings.Contains(stdout, "total (check") {
		t.Fatalf("status %d\n%s%s", st, stdout, errs)
	}
	if took > 5*time.Minute {
		t.Fatalf("the campaign took %v", took)
	}
	t.Logf("a campaign of 40 checks against a sandbox that hangs on tools, findings minimized: %v\n%s", took, stdout)
}
