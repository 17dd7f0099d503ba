package httpguard

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/sbxtest"
)

// rebindingScenario grants two hosts: one whose dns line answers an
// internal address, one that rebinds from a public address to the
// metadata address. The correct guard refuses both internal answers.
const rebindingScenario = `#
grant net api.test rebind.test
route api.test /secret "internal data"
route rebind.test /x "public data"
dns api.test 10.0.0.5
dns rebind.test 203.0.113.9 169.254.169.254
net_fetch api.test /secret
net_fetch rebind.test /x
net_fetch rebind.test /x
`

// withDefect is the sandbox with defect switched on.
func withDefect(defect string) sbxtest.Sandbox {
	return sbxtest.Sandbox{Name: "httpguard-" + defect, Factory: func(g core.Grant, w core.World) (core.Sandbox, error) {
		return newSandbox(g, w, defect), nil
	}}
}

// TestDefectsCaughtByTheCheck runs the fuzz target's check (sbxtest.CheckInput)
// on a rebinding scenario: clean without a defect, and each defect caught
// on no-internal-egress.
func TestDefectsCaughtByTheCheck(t *testing.T) {
	t.Setenv("SBXFUZZ_OUT", t.TempDir())
	if err := sbxtest.CheckInput(withDefect(""), []byte(rebindingScenario)); err != nil {
		t.Fatalf("the correct guard failed: %v", err)
	}
	for _, defect := range []string{defectName, defectRebind} {
		err := sbxtest.CheckInput(withDefect(defect), []byte(rebindingScenario))
		var f *sbxtest.Failure
		if !errors.As(err, &f) || f.Invariant.String() != "no-internal-egress" {
			t.Errorf("defect %s: CheckInput = %v, want a no-internal-egress failure", defect, err)
		}
	}
}

// TestDefectsCaughtByProperty runs this package's TestProperty in a child
// process with each defect switched on: each must fail with a minimized
// reproducer for no-internal-egress.
func TestDefectsCaughtByProperty(t *testing.T) {
	if os.Getenv(defectEnv) != "" {
		t.Skip("in the child process")
	}
	if testing.Short() {
		t.Skip("-short: runs the property in two child processes")
	}
	for _, defect := range []string{defectName, defectRebind} {
		t.Run(defect, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestProperty$", "-test.count=1", "-rapid.nofailfile")
			cmd.Env = append(os.Environ(), defectEnv+"="+defect, "SBXFUZZ_OUT="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("TestProperty passed with %s=%s:\n%s", defectEnv, defect, out)
			}
			if !strings.Contains(string(out), "minimized reproducer for no-internal-egress") {
				t.Errorf("TestProperty with %s=%s printed no no-internal-egress reproducer:\n%s", defectEnv, defect, out)
			}
		})
	}
}
