package sbxtest

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
	"pgregory.net/rapid"
)

func mutant(t *testing.T, name string) Sandbox {
	t.Helper()
	m, ok := mutants.Lookup(name)
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	return Sandbox{Name: "mutant:" + name, Factory: m.Factory, Out: t.TempDir()}
}

// replays reports whether the file at path fails on f with invariant id.
func replays(t *testing.T, path string, f core.Factory, id oracle.ID) bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(path, text)
	if err != nil {
		t.Fatalf("the saved reproducer does not parse: %v", err)
	}
	out, err := replay.Run(path, sc, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range out.Findings {
		if fd.Invariant == id {
			return true
		}
	}
	return false
}

// TestCheckInputReportsAMinimizedReproducer: a failing input gives a
// *Failure whose text holds the reproducer and the command, and whose
// saved file fails the same invariant on the sandbox and passes on the
// reference.
func TestCheckInputReportsAMinimizedReproducer(t *testing.T) {
	sb := mutant(t, "raw-prefix")
	sb.Command = "go run ./cmd/x"
	in := []byte("# raw prefix\ngrant fs_read /work\nfile /work/a a\nfile /workshop/s s3cr3t\nfs_read /work/a\nfs_read /work/a\nfs_read /workshop/s\n")
	err := CheckInput(sb, in)
	var f *Failure
	if !errors.As(err, &f) {
		t.Fatalf("CheckInput on raw-prefix: %v, want a *Failure", err)
	}
	if f.File == "" || filepath.Dir(f.File) != sb.Out {
		t.Fatalf("saved as %q (%v), want a file in %s", f.File, f.SaveErr, sb.Out)
	}
	if n := len(f.Reproducer.Steps); n != 1 {
		t.Errorf("minimized to %d ops, want 1", n)
	}
	msg := err.Error()
	for _, want := range []string{"minimized reproducer for " + f.Invariant.String(), "fs_read /works", "=> fs_read_denied",
		"replay it: go -C " + moduleDir(t) + " run ./cmd/x replay --sut mutant:raw-prefix " + f.File} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure does not say %q:\n%s", want, msg)
		}
	}
	if !replays(t, f.File, sb.Factory, f.Invariant) {
		t.Errorf("the saved reproducer does not fail %s on the mutant", f.Invariant)
	}
	if replays(t, f.File, core.ReferenceFactory, f.Invariant) {
		t.Errorf("the saved reproducer fails on the reference")
	}
	if err := CheckInput(Sandbox{Factory: core.ReferenceFactory}, in); err != nil {
		t.Errorf("the reference fails the input: %v", err)
	}
}

// TestReplayFileFails: a committed scenario that the sandbox fails gives
// its unmet expectations, by line, and a reproducer.
func TestReplayFileFails(t *testing.T) {
	sb := mutant(t, "raw-prefix")
	file := filepath.Join("..", "corpus", "mutants", "raw-prefix.sbx")
	msg := replayFile(sb, file)
	for _, want := range []string{file + ":", "want fs_read_denied", "minimized reproducer"} {
		if !strings.Contains(msg, want) {
			t.Errorf("replayFile does not say %q:\n%s", want, msg)
		}
	}
	if msg := replayFile(Sandbox{Factory: core.ReferenceFactory}, file); msg != "" {
		t.Errorf("the reference fails %s: %s", file, msg)
	}
	if msg := replayFile(sb, "no-such-file.sbx"); !strings.Contains(msg, "no-such-file.sbx") {
		t.Errorf("a missing file: %q", msg)
	}
}

// fakeTB records what rapid reports, so a failing property can be tested.
type fakeTB struct {
	failed bool
	log    strings.Builder
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Name() string                      { return "fake" }
func (f *fakeTB) Logf(format string, args ...any)   { fmt.Fprintf(&f.log, format+"\n", args...) }
func (f *fakeTB) Log(args ...any)                   { fmt.Fprintln(&f.log, args...) }
func (f *fakeTB) Skipf(string, ...any)              {}
func (f *fakeTB) Skip(...any)                       {}
func (f *fakeTB) SkipNow()                          {}
func (f *fakeTB) Errorf(format string, args ...any) { f.failed = true; f.Logf(format, args...) }
func (f *fakeTB) Error(args ...any)                 { f.failed = true; f.Log(args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.Errorf(format, args...) }
func (f *fakeTB) Fatal(args ...any)                 { f.Error(args...) }
func (f *fakeTB) FailNow()                          { f.failed = true }
func (f *fakeTB) Fail()                             { f.failed = true }
func (f *fakeTB) Failed() bool                      { return f.failed }

// TestPropertyOfFails: the property catches a mutant and its failure
// carries the minimized reproducer; on the reference it passes. rapid does
// not shrink here (as under go test -fuzz, for which PropertyOf is made):
// how far it would get depends on the machine's speed, and every step
// would minimize again.
func TestPropertyOfFails(t *testing.T) {
	t.Chdir(t.TempDir()) // rapid reads and writes fail files under testdata/rapid
	noShrinking(t)
	tb := new(fakeTB)
	rapid.Check(tb, PropertyOf(mutant(t, "raw-prefix")))
	if !tb.failed || !strings.Contains(tb.log.String(), "minimized reproducer") {
		t.Fatalf("the property passed raw-prefix, or said no reproducer:\n%s", tb.log.String())
	}
	ok := new(fakeTB)
	rapid.Check(ok, PropertyOf(Sandbox{Factory: core.ReferenceFactory}))
	if ok.failed {
		t.Fatalf("the property fails the reference:\n%s", ok.log.String())
	}
}

// noShrinking sets -rapid.shrinktime to zero for the test: rapid then
// reports the first failing input as it was drawn.
func noShrinking(t *testing.T) {
	t.Helper()
	f := flag.Lookup("rapid.shrinktime")
	if f == nil {
		t.Fatal("no flag -rapid.shrinktime")
	}
	old := f.Value.String()
	if err := f.Value.Set("0s"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// TestSeeds: the fuzz target is seeded with every committed scenario.
func TestSeeds(t *testing.T) {
	files, _ := filepath.Glob("../corpus/*/*.sbx")
	top, _ := filepath.Glob("../corpus/*.sbx")
	if got, want := len(seeds()), len(files)+len(top); got != want || want == 0 {
		t.Fatalf("%d seeds, want one for each of the %d corpus files", got, want)
	}
}

// TestExec: a sandbox in another process, through the public API: the
// reference served over the pipe passes the committed scenarios of the
// corpus that the reference passes in process.
func TestExec(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if err := proc.Supported(); err != nil {
		t.Skip("a sandbox in another process:", err)
	}
	bin := filepath.Join(t.TempDir(), "sbxfuzz")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/sbxfuzz").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, stop, err := Exec(bin + " serve --sut mutant:raw-prefix")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	sb := Sandbox{Name: "raw-prefix over the pipe", Factory: f, Out: t.TempDir()}
	if msg := replayFile(sb, "../corpus/worked_trace.sbx"); msg != "" {
		t.Errorf("the worked trace fails over the pipe: %s", msg)
	}
	if msg := replayFile(sb, "../corpus/mutants/raw-prefix.sbx"); !strings.Contains(msg, "minimized reproducer") {
		t.Errorf("raw-prefix's killer passes over the pipe: %q", msg)
	}
	if _, _, err := Exec(`python3 "unterminated`); err == nil {
		t.Error("a command with an unterminated quote was accepted")
	}
	t.Run("shared", func(t *testing.T) { execShared(t, bin) })
}

// execShared: one Exec's factory shared by goroutines that build and run
// sandboxes at once, as parallel tests do, passes what the reference
// passes (a child holds one sandbox at a time: on one child, a second
// open replaced the first under the test still running it); stop leaves
// no child behind, a sandbox still open included, and the factory refuses
// to build after it.
func execShared(t *testing.T, bin string) {
	f, stop, err := Exec(bin + " serve --sut reference")
	if err != nil {
		t.Fatal(err)
	}
	sb := Sandbox{Name: "reference shared", Factory: f, Out: t.TempDir()}
	var wg sync.WaitGroup
	failed := make(chan string, 4*8)
	for range 4 {
		wg.Go(func() {
			for range 8 {
				if msg := replayFile(sb, "../corpus/worked_trace.sbx"); msg != "" {
					failed <- msg
				}
			}
		})
	}
	wg.Wait()
	close(failed)
	for msg := range failed {
		t.Errorf("the worked trace fails on a factory shared by four goroutines: %s", msg)
		break
	}
	// One sandbox left open, and one hung call on another child: stop
	// ends both children all the same.
	if _, err := f(core.Grant{}, refworld.New(scenario.WorldSpec{})); err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := f(core.Grant{}, nil); err == nil {
		t.Error("the factory built a sandbox after stop")
	}
	if left := processesOf(t, bin+"\x00serve\x00--sut\x00reference"); len(left) > 0 {
		t.Errorf("children left after stop: %v", left)
	}
}

// processesOf lists the processes whose command line (its words joined
// by NUL bytes) holds words, from /proc; none where there is no /proc to
// read.
func processesOf(t *testing.T, words string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var found []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), words) {
			found = append(found, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return found
}

// TestExecHungBuildsBounded: a sandbox that hangs at every open leaves no
// more children than the bound on builds under way, however many builds
// hang (a hung build never gives its child back; the next one past the
// bound takes the oldest one's session and kills its child), and stop
// ends the rest and every hung call.
func TestExecHungBuildsBounded(t *testing.T) {
	if err := proc.Supported(); err != nil {
		t.Skip("a sandbox in another process:", err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the hanging sandbox is a Python script")
	}
	pids := filepath.Join(t.TempDir(), "pids")
	f, stop, err := Exec(py + " ../internal/proc/testdata/misbehave.py hangopen " + pids)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	bound := max(4, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range bound + 3 {
		// One build at a time, each on as far as its child's start: the
		// first ones on children of their own, those past the bound each
		// on a fresh child in the oldest build's session.
		wg.Go(func() { _, _ = f(core.Grant{}, refworld.New(scenario.WorldSpec{})) })
		waitFor(t, func() bool { return len(startedPIDs(t, pids)) > i }, "a build's child to start")
	}
	marker := "misbehave.py\x00hangopen\x00" + pids
	waitFor(t, func() bool { return len(processesOf(t, marker)) <= bound }, "the children past the bound to be killed")
	stop()
	stopped = true
	waitFor(t, func() bool { return len(processesOf(t, marker)) == 0 }, "stop to end every child")
	wg.Wait() // every hung call returned
}

// waitFor polls cond until it holds, failing the test if it does not
// within a minute: long past anything a loaded machine takes.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// startedPIDs reads the pids the children wrote to file, one a line.
func startedPIDs(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}
