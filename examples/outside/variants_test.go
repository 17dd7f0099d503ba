package outside_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"example.com/outside"
)

// TestVariantsCaught grades the test suite: TestProperty, at its
// defaults, must fail on every variant with a minimized reproducer, and
// the variant's reproducer in testdata/ must fail on it. Each runs in a
// child process of this test binary, as go test would with
// OUTSIDE_VARIANT set.
func TestVariantsCaught(t *testing.T) {
	if os.Getenv(variantEnv) != "" {
		t.Skip("in a child")
	}
	for _, v := range outside.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			out, code := runChild(t, v.Name, "^TestProperty$")
			if code != 1 {
				t.Fatalf("TestProperty on %s (%s): exit %d, want 1:\n%s", v.Name, v.Defect, code, out)
			}
			m := caught.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("TestProperty failed on %s without a minimized reproducer:\n%s", v.Name, out)
			}
			t.Logf("%s: caught at %s", v.Name, m[1])
			if out, code := runChild(t, v.Name, "^TestCorpus$/^"+v.Name+"$"); code != 1 {
				t.Errorf("testdata/%s.sbx on %s: exit %d, want 1:\n%s", v.Name, v.Name, code, out)
			}
		})
	}
}

// caught matches what a failing Property prints: where it failed, and
// the reproducer.
var caught = regexp.MustCompile(`(check \d+ of seed \d+) failed(?s:.*)minimized reproducer for [a-z-]+`)

// runChild runs this test binary's tests that match run on variant name,
// at Property's defaults (no -rapid flag, no RAPID_ variable), findings
// written to a temporary directory, and returns its output and exit
// status. The child is bounded in time far past what it takes: only
// a hang reaches the bound.
func runChild(t *testing.T, name, run string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+run)
	cmd.Env = append(withoutRapid(os.Environ()), variantEnv+"="+name, "SBXFUZZ_OUT="+t.TempDir())
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	t.Fatalf("%s: %v\n%s", name, err, out)
	return "", -1
}

// withoutRapid is env without rapid's variables, which would change what
// Property draws.
func withoutRapid(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "RAPID_") {
			out = append(out, kv)
		}
	}
	return out
}
