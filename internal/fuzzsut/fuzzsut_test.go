package fuzzsut

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzinput"
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
		inProcess, err := fuzzinput.LookupInProcess(name)
		if err != nil {
			t.Fatal(err)
		}
		any, err := lookup(name)
		if err != nil {
			t.Fatal(err)
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
		t.Errorf("the seeds fail only %d of %d mutants: the comparison above proves little", killed, len(names)-1)
	}
}

func TestLookupAny(t *testing.T) {
	if f, err := lookup(sut.OSRoot); err != nil || f == nil {
		t.Errorf("lookup(%q) = %v, %v", sut.OSRoot, f != nil, err)
	}
	if _, err := lookup("no-such-sandbox"); err == nil || !strings.Contains(err.Error(), "unknown sandbox") {
		t.Errorf("lookup of an unknown name: %v", err)
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
	for _, d := range deps {
		for _, banned := range []string{"/internal/sut", "/internal/proc", "/internal/realsut", "/internal/mcp", "/internal/realfs", "/internal/fuzzsut", "pgregory.net/rapid"} {
			if strings.HasSuffix(d, banned) || strings.HasPrefix(d, banned) {
				t.Errorf("package fuzz links %s", d)
			}
		}
	}
}
