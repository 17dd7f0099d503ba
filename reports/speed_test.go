//go:build unix

package reports_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpeedScriptUsage runs speed.sh with bad arguments, which it must
// refuse with exit 2 before building or measuring anything, and with
// --help. (CI runs it for real, one short round.)
func TestSpeedScriptUsage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash: speed.sh is a bash script")
	}
	out := filepath.Join(t.TempDir(), "speed.md")
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--help"}, 0, "reports/speed.sh [--rounds N] [--checks N] [--output FILE]"},
		{[]string{"--rounds"}, 2, "--rounds needs a value"},
		{[]string{"--rounds", "x"}, 2, `--rounds takes a whole number up to 99999999, not "x"`},
		{[]string{"--checks", "-1"}, 2, "--checks takes a whole number"},
		{[]string{"--output", out, "--rounds", "0"}, 2, "--rounds must be at least 1"},
		{[]string{"--checks", "49"}, 2, "--checks must be at least 50"},
		{[]string{"--output", "/nonexistent-dir/speed.md"}, 2, "no directory /nonexistent-dir"},
		{[]string{"--fuzz-pairs", "1"}, 2, `unknown argument "--fuzz-pairs"`},
		{[]string{"--bogus"}, 2, `unknown argument "--bogus"`},
	} {
		got, err := runScript(t, tc.args...)
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("speed.sh %v: %v, output %q", tc.args, err, got)
		}
		if code != tc.code || !strings.Contains(string(got), tc.says) {
			t.Errorf("speed.sh %v: exit %d (%v), output %q; want exit %d and %q", tc.args, code, err, got, tc.code, tc.says)
		}
		if strings.Contains(string(got), "building") {
			t.Errorf("speed.sh %v built something before refusing its arguments: %q", tc.args, got)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run left %s behind (%v)", out, err)
	}
}

// runScript runs speed.sh with args in a process group of its own, killed
// whole (SIGTERM, on which it cleans up) if it is still running after 30 s: a refused run takes
// milliseconds, and one that does not refuse would go on to build and
// measure for minutes.
func runScript(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"speed.sh"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, fmt.Errorf("still running after 30 s, killed: %w", err)
	}
	return out, err
}
