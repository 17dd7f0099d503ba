package fuzzinput

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// prefixSeed is a text input the reference passes and a sandbox that
// matches roots as raw string prefixes fails.
var prefixSeed = TextSeed("prefix", []byte("grant fs_read /work\nfile /workshop/secret LEAK\n\nfs_read /workshop/secret\n"))

func TestLookupInProcess(t *testing.T) {
	f, adapt, err := LookupInProcess(ReferenceName)
	if err != nil || adapt != nil {
		t.Fatal(err)
	}
	if err := CheckScenarioOn(ReferenceName, f, prefixSeed); err != nil {
		t.Errorf("the reference fails the prefix seed: %v", err)
	}
	for _, name := range mutants.Names() {
		if _, _, err := LookupInProcess(MutantPrefix + name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	f, _, err = LookupInProcess(MutantPrefix + "raw-prefix")
	if err != nil {
		t.Fatal(err)
	}
	var se *ScenarioError
	if err := CheckScenarioOn("raw-prefix", f, prefixSeed); !errors.As(err, &se) {
		t.Errorf("mutant:raw-prefix passes the prefix seed (%v): LookupInProcess gave another sandbox", err)
	}
	for name, want := range map[string]string{
		"mutant:nope":          `unknown mutant "nope"`,
		"exec:python3 x.py":    "./fuzz/external",
		"osroot":               "./fuzz/external",
		"Reference":            "./fuzz/external",
		"mcp:node server.js /": "./fuzz/external",
	} {
		if f, _, err := LookupInProcess(name); err == nil || f != nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LookupInProcess(%q) = %v, %v; want an error saying %q", name, f != nil, err, want)
		}
	}
}

func TestSandboxReadsTheEnvironmentOnce(t *testing.T) {
	var asked []string
	lookup := func(name string) (core.Factory, Adapter, error) {
		asked = append(asked, name)
		return LookupInProcess(name)
	}
	t.Setenv(EnvVar, "")
	s := NewSandbox(lookup)
	if name, f, err := s.Get(); name != ReferenceName || f == nil || err != nil {
		t.Errorf("unset: Get() = %q, %v, %v; want the reference", name, f != nil, err)
	}
	t.Setenv(EnvVar, "mutant:raw-prefix")
	if name, _, _ := s.Get(); name != ReferenceName || len(asked) != 1 {
		t.Errorf("Get() read the environment again: %q, lookups %q", name, asked)
	}

	s = NewSandbox(lookup)
	if err := s.CheckScenario(prefixSeed); err == nil {
		t.Error("mutant:raw-prefix passes the prefix seed")
	}

	t.Setenv(EnvVar, "exec:false")
	s = NewSandbox(lookup)
	name, f, err := s.Get()
	if name != "exec:false" || f != nil || err == nil || !strings.HasPrefix(err.Error(), EnvVar+"=exec:false: ") {
		t.Errorf("Get() = %q, %v, %v; want no factory and an error naming %s", name, f != nil, err, EnvVar)
	}
	if err2 := s.CheckScenario(prefixSeed); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("CheckScenario on an unknown sandbox = %v; want %v", err2, err)
	}
}

func TestReadSeedDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b", EncodeGoFuzz([]byte("second")))
	write("a", EncodeGoFuzz([]byte("first\x00")))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	seeds, err := ReadSeedDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 2 || string(seeds[0]) != "first\x00" || string(seeds[1]) != "second" {
		t.Errorf("ReadSeedDir = %q; want [first\\x00 second]", seeds)
	}
	write("c", []byte("not a corpus file"))
	if _, err := ReadSeedDir(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "c")) {
		t.Errorf("ReadSeedDir with a bad file: %v; want an error naming it", err)
	}
	if _, err := ReadSeedDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("ReadSeedDir of a missing directory: no error")
	}
}

// TestSandboxAdapts: a sandbox with an adapter judges what the adapter
// makes of each input, and passes an input it leaves nothing of.
func TestSandboxAdapts(t *testing.T) {
	t.Setenv(EnvVar, "mutant:raw-prefix")
	var seen []string
	withAdapter := func(adapt Adapter) *Sandbox {
		return NewSandbox(func(name string) (core.Factory, Adapter, error) {
			f, _, err := LookupInProcess(name)
			return f, adapt, err
		})
	}
	if NewSandbox(LookupInProcess).Adapts() {
		t.Error("the mutant has an adapter")
	}
	none := withAdapter(func(sc *scenario.Scenario) *scenario.Scenario {
		seen = append(seen, sc.Steps[0].Op.Args[0])
		return nil
	})
	if !none.Adapts() {
		t.Error("Adapts() = false with an adapter")
	}
	if err := none.CheckScenario(prefixSeed); err != nil {
		t.Errorf("an input the adapter drops: %v", err)
	}
	if len(seen) != 1 || seen[0] != "/workshop/secret" {
		t.Errorf("the adapter saw %q; want the decoded op's path", seen)
	}
	// An adapter that moves the read to a path the mutant gets right
	// turns the finding into a pass, and one that keeps it keeps the finding.
	moved := withAdapter(func(sc *scenario.Scenario) *scenario.Scenario {
		sc.Steps[0].Op.Args = []string{"/work/x"}
		return sc
	})
	if err := moved.CheckScenario(prefixSeed); err != nil {
		t.Errorf("the adapted scenario was not the one judged: %v", err)
	}
	same := withAdapter(func(sc *scenario.Scenario) *scenario.Scenario { return sc })
	var se *ScenarioError
	if err := same.CheckScenario(prefixSeed); !errors.As(err, &se) || se.SUT != "mutant:raw-prefix" || se.Mode != ModeText ||
		len(se.Scenario.Steps) != 1 || se.Scenario.Steps[0].Op.Args[0] != "/workshop/secret" {
		t.Errorf("an adapter that changes nothing: %v; want the mutant's finding on the decoded scenario", err)
	}
}
