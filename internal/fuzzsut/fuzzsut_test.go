package fuzzsut

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
)

// TestNamesInStep: package fuzz's lookup and the command line's name the
// in-process sandboxes alike and read the same variable.
func TestNamesInStep(t *testing.T) {
	if fuzzinput.EnvVar != sut.EnvVar || fuzzinput.ReferenceName != sut.Reference || fuzzinput.MutantPrefix != sut.MutantPrefix {
		t.Fatalf("fuzzinput names %q %q %q, sut %q %q %q", fuzzinput.EnvVar, fuzzinput.ReferenceName, fuzzinput.MutantPrefix, sut.EnvVar, sut.Reference, sut.MutantPrefix)
	}
}

// TestSameSandboxesInProcess: for the reference and every mutant, the two
// lookups give sandboxes that judge FuzzScenario's seeds alike (the mutants
// fail some of them, each its own).
func TestSameSandboxesInProcess(t *testing.T) {
	seeds, err := fuzzinput.ReadSeedDir("../../fuzz/testdata/fuzz/FuzzScenario")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{sut.Reference}
	for _, m := range mutants.Names() {
		names = append(names, sut.MutantPrefix+m)
	}
	killed := 0
	for _, name := range names {
		inProcess, _, err := fuzzinput.LookupInProcess(name)
		if err != nil {
			t.Fatal(err)
		}
		any, adapt, err := lookup(name)
		if err != nil || adapt != nil {
			t.Fatal(err, adapt != nil)
		}
		failed := 0
		for i, s := range seeds {
			a := fuzzinput.CheckScenarioOn(name, inProcess, s)
			b := fuzzinput.CheckScenarioOn(name, any, s)
			if (a == nil) != (b == nil) {
				t.Errorf("%s, seed %d: in process %v, any %v", name, i, a, b)
			}
			if a != nil {
				failed++
			}
		}
		if name == sut.Reference && failed > 0 {
			t.Errorf("the reference fails %d seeds", failed)
		}
		if failed > 0 {
			killed++
		}
	}
	if killed < len(names)/2 {
		t.Errorf("the seeds fail only %d of %d sandboxes: the comparison above proves little", killed, len(names))
	}
}

func TestLookupAny(t *testing.T) {
	if _, _, err := lookup("no-such-sandbox"); err == nil || !strings.Contains(err.Error(), "unknown sandbox") {
		t.Errorf("lookup of an unknown name: %v", err)
	}
}

// TestOSRootPassesTheSeeds: the os.Root sandbox on the real disk passes
// every seed once its adapter has narrowed each to what it can express
// (SPEC §13); judged without it, it fails some (a write to a directory, a
// name too long for the disk), which is why the adapter must be applied.
func TestOSRootPassesTheSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("materializes a tree on disk per seed")
	}
	if err := realfs.Supported(); err != nil {
		t.Skip("osroot:", err)
	}
	seeds, err := fuzzinput.ReadSeedDir("../../fuzz/testdata/fuzz/FuzzScenario")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fuzzinput.EnvVar, sut.OSRoot)
	s := fuzzinput.NewSandbox(lookup)
	name, f, err := s.Get()
	if err != nil {
		t.Fatal(err)
	}
	unadapted := 0
	for i, seed := range seeds {
		if err := s.CheckScenario(seed); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
		if fuzzinput.CheckScenarioOn(name, f, seed) != nil {
			unadapted++
		}
	}
	if unadapted == 0 {
		t.Error("osroot passes every seed without its adapter too: this test shows nothing")
	}
}

// TestPackageFuzzLinksNoSandboxOutsideItsProcess: package fuzz's test
// binary (its fuzz targets) must not link the sandboxes of other processes,
// the disk or MCP servers, whose coverage counters every exec would pay
// for (fuzzinput.Sandbox).
func TestPackageFuzzLinksNoSandboxOutsideItsProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-test", "github.com/sbxfuzz/sbxfuzz/fuzz")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go list: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Skipf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list listed %d packages: %q", len(deps), deps)
	}
	banned := map[string]bool{"pgregory.net/rapid": true}
	for _, p := range []string{"internal/sut", "internal/proc", "internal/realsut", "internal/mcp", "internal/realfs", "internal/fuzzsut", "sbxtest"} {
		banned["github.com/sbxfuzz/sbxfuzz/"+p] = true
	}
	for _, d := range deps {
		if banned[d] {
			t.Errorf("package fuzz links %s", d)
		}
	}
}
