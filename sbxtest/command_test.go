package sbxtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// moduleDir is the root of this module, where go test's directory
// (sbxtest) is one level down.
func moduleDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReplayCommandFromAnyDirectory: the printed command names absolute
// paths and runs Command from the module root, and the go test form in
// the package's directory, whatever directory it is pasted in.
func TestReplayCommandFromAnyDirectory(t *testing.T) {
	root := moduleDir(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "x.sbx")
	rel := filepath.Join("findings", "y.sbx")
	for _, tc := range []struct {
		reason, command, path, want string
	}{
		{"go run runs in the module root", "go run ./cmd/sbxfuzz", file,
			"go -C " + root + " run ./cmd/sbxfuzz replay --sut mine " + file},
		{"a relative program becomes absolute", "./bin/mine-sbxfuzz", file,
			filepath.Join(root, "bin", "mine-sbxfuzz") + " replay --sut mine " + file},
		{"a program on PATH stays", "mine-sbxfuzz", file, "mine-sbxfuzz replay --sut mine " + file},
		{"a go command given its directory stays", "go -C /elsewhere run .", file,
			"go -C /elsewhere run . replay --sut mine " + file},
		{"a relative reproducer becomes absolute", "mine-sbxfuzz", rel,
			"mine-sbxfuzz replay --sut mine " + filepath.Join(wd, rel)},
		{"no Command: go test in the package's directory", "", file,
			ReplayEnv + "=" + file + " go -C " + wd + " test -run '^TestCorpus$' ."},
	} {
		got := Sandbox{Name: "mine", Command: tc.command}.replayCommand(tc.path)
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.reason, got, tc.want)
		}
	}
	if got := fromModuleRoot("go run .", string(filepath.Separator)); got != "go run ." {
		t.Errorf("outside any module: %q, want the command as it is", got)
	}
}

// TestReplayCommandRuns: the replay line of a failure, with Command "go
// run ./cmd/sbxfuzz" as written at the module root, run by a shell in
// another directory, replays the reproducer and fails it again.
func TestReplayCommandRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: go run builds sbxfuzz")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to paste the command into")
	}
	sb := mutant(t, "raw-prefix")
	sb.Command = "go run ./cmd/sbxfuzz"
	err := CheckInput(sb, []byte("# raw prefix\ngrant fs_read /work\nfile /workshop/s s3cr3t\nfs_read /workshop/s\n"))
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("CheckInput on raw-prefix: %v, want a *Failure", err)
	}
	// Far past what go run takes on a loaded machine: only a hang stops it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", f.Replay)
	cmd.Dir = t.TempDir()
	cmd.WaitDelay = 10 * time.Second
	ownProcessGroup(cmd)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), f.Invariant.String()) {
		t.Errorf("$ %s\nin %s: %v, want exit 1 and %s:\n%s", f.Replay, cmd.Dir, err, f.Invariant, out)
	}
}

// TestDefaultOut: reproducers go where the command line's findings go, under
// the user's cache directory, not a directory of the system's temporary one
// every user shares; $SBXFUZZ_OUT and Out come first.
func TestDefaultOut(t *testing.T) {
	t.Setenv("SBXFUZZ_OUT", "")
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no user cache directory here (%v): the temporary directory is all there is", err)
	}
	if got, want := (Sandbox{Name: "mine"}).out(), filepath.Join(cache, "sbxfuzz", "findings", "mine"); got != want {
		t.Errorf("the default directory is %s, want %s", got, want)
	}
	t.Setenv("SBXFUZZ_OUT", "/from/env")
	if got := (Sandbox{Name: "mine"}).out(); got != "/from/env" {
		t.Errorf("with $SBXFUZZ_OUT set: %s", got)
	}
	if got := (Sandbox{Name: "mine", Out: "/given"}).out(); got != "/given" {
		t.Errorf("with Out given: %s", got)
	}
}

// TestPipelineLabelsAsTheCommandLine: a reproducer go test prints names
// the attack class of its minimized op as the command line's import and
// run name it, not the class the op was drawn with before minimizing.
func TestPipelineLabelsAsTheCommandLine(t *testing.T) {
	label := (Sandbox{Name: "mine"}).pipeline().Class
	if label == nil {
		t.Fatal("sbxtest's pipeline labels a minimized op by the class it was drawn with")
	}
	// A fetch of a NAT64 literal, left of a traversal the minimizer
	// emptied the path of.
	sc, err := scenario.Parse("t.sbx", []byte("grant net a.test\nnet_fetch 64:ff9b::ac10:0 \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := campaign.MinimizedClass(sc, 1, attack.Traversal)
	if got := label(sc, 1, attack.Traversal); got != want || got == attack.Traversal {
		t.Errorf("sbxtest labels the minimized fetch %v; the command line labels it %v, not the class it was drawn with", got, want)
	}
}
