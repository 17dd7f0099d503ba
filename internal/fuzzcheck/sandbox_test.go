package fuzzcheck

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzdecode"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// prefixSeed is a text input the reference passes and a sandbox that
// matches roots as raw string prefixes fails.
var prefixSeed = fuzzdecode.TextSeed("prefix", []byte("grant fs_read /work\nfile /workshop/secret LEAK\n\nfs_read /workshop/secret\n"))

// registry is the lookup of the fuzz targets' sandbox: internal/sut's.
func registry(name string) (sut.Target, error) { return sut.Lookup(name) }

// seedInputs reads the committed FuzzScenario seeds.
func seedInputs(tb testing.TB) [][]byte {
	in, err := fuzzfile.ReadSeedDir("../../fuzz/testdata/fuzz/FuzzScenario")
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// TestSandboxNamesAnySUT: the fuzz targets' sandbox is any --sut value,
// through internal/sut's registry: the reference, a mutant, a door outside
// the process (osroot, with its adapter); an unknown name or a command
// that cannot start is an error naming the variable, never the reference.
func TestSandboxNamesAnySUT(t *testing.T) {
	for _, tc := range []struct {
		name, wantErr string
		fails, adapts bool
		reason        string
	}{
		{"", "", false, false, "unset: the reference, which passes the seed"},
		{sut.Reference, "", false, false, "the reference by name"},
		{sut.MutantPrefix + "raw-prefix", "", true, false, "a mutant, which fails the seed"},
		{sut.OSRoot, "", false, true, "the real disk, through its adapter"},
		{sut.MutantPrefix + "nope", `SBXFUZZ_SUT=mutant:nope: unknown mutant "nope"`, false, false, "an unknown mutant"},
		{"bogus", `SBXFUZZ_SUT=bogus: unknown sandbox "bogus"`, false, false, "an unknown name"},
		{"exec:/nonexistent/sandbox", "SBXFUZZ_SUT=exec:/nonexistent/sandbox: ", false, false, "a command that cannot start"},
	} {
		if tc.name == sut.OSRoot {
			if err := realfs.Supported(); err != nil {
				t.Logf("%s: skipped: %v", tc.reason, err)
				continue
			}
		}
		t.Setenv(sut.EnvVar, tc.name)
		s := &sandbox{lookup: registry}
		err := s.check(prefixSeed)
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%s: check = %v; want an error starting %q", tc.reason, err, tc.wantErr)
			}
			continue
		}
		var se *ScenarioError
		if failed := errors.As(err, &se); failed != tc.fails || (!failed && err != nil) {
			t.Errorf("%s: check = %v; want a finding: %v", tc.reason, err, tc.fails)
		}
		if got := s.adapt != nil; got != tc.adapts {
			t.Errorf("%s: adapts = %v, want %v", tc.reason, got, tc.adapts)
		}
	}
}

func TestSandboxReadsTheEnvironmentOnce(t *testing.T) {
	var asked []string
	lookup := func(name string) (sut.Target, error) {
		asked = append(asked, name)
		return sut.Lookup(name)
	}
	t.Setenv(sut.EnvVar, "")
	s := &sandbox{lookup: lookup}
	if name, f, err := s.get(); name != sut.Reference || f == nil || err != nil {
		t.Errorf("unset: get() = %q, %v, %v; want the reference", name, f != nil, err)
	}
	t.Setenv(sut.EnvVar, "mutant:raw-prefix")
	if name, _, _ := s.get(); name != sut.Reference || len(asked) != 1 {
		t.Errorf("get() read the environment again: %q, lookups %q", name, asked)
	}
	if err := s.check(prefixSeed); err != nil {
		t.Errorf("the reference, looked up before the variable changed, fails: %v", err)
	}
}

// TestSandboxAdapts: a sandbox with an adapter judges what the adapter
// makes of each input, and passes an input it leaves nothing of.
func TestSandboxAdapts(t *testing.T) {
	t.Setenv(sut.EnvVar, "mutant:raw-prefix")
	var seen []string
	withAdapter := func(adapt func(*scenario.Scenario) *scenario.Scenario) *sandbox {
		return &sandbox{lookup: func(name string) (sut.Target, error) {
			tg, err := sut.Lookup(name)
			tg.Adapt = adapt
			return tg, err
		}}
	}
	none := withAdapter(func(sc *scenario.Scenario) *scenario.Scenario {
		seen = append(seen, sc.Steps[0].Op.Args[0])
		return nil
	})
	if err := none.check(prefixSeed); err != nil {
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
	if err := moved.check(prefixSeed); err != nil {
		t.Errorf("the adapted scenario was not the one judged: %v", err)
	}
	same := withAdapter(func(sc *scenario.Scenario) *scenario.Scenario { return sc })
	var se *ScenarioError
	if err := same.check(prefixSeed); !errors.As(err, &se) || se.SUT != "mutant:raw-prefix" || se.Mode != fuzzdecode.ModeText ||
		len(se.Scenario.Steps) != 1 || se.Scenario.Steps[0].Op.Args[0] != "/workshop/secret" {
		t.Errorf("an adapter that changes nothing: %v; want the mutant's finding on the decoded scenario", err)
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
	seeds := seedInputs(t)
	t.Setenv(sut.EnvVar, sut.OSRoot)
	s := &sandbox{lookup: registry}
	name, f, err := s.get()
	if err != nil {
		t.Fatal(err)
	}
	unadapted := 0
	for i, seed := range seeds {
		if err := s.check(seed); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
		if checkOn(name, f, seed) != nil {
			unadapted++
		}
	}
	if unadapted == 0 {
		t.Error("osroot passes every seed without its adapter too: this test shows nothing")
	}
}

// TestCheckScenarioFindsMutant: the raw-prefix mutant's corpus killer, as
// a FuzzScenario seed, fails on the mutant with the finding in plain words
// and passes on the reference.
func TestCheckScenarioFindsMutant(t *testing.T) {
	text, err := os.ReadFile("../../corpus/mutants/raw-prefix.sbx")
	if err != nil {
		t.Fatal(err)
	}
	in := fuzzdecode.TextSeed("raw-prefix.sbx", text)
	t.Setenv(sut.EnvVar, "")
	if err := (&sandbox{lookup: registry}).check(in); err != nil {
		t.Fatalf("the reference fails: %v", err)
	}
	t.Setenv(sut.EnvVar, "mutant:raw-prefix")
	err = (&sandbox{lookup: registry}).check(in)
	var se *ScenarioError
	if !errors.As(err, &se) {
		t.Fatalf("the mutant passes: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"on mutant:raw-prefix", "confinement: step 1:", "/workshop/secret", "grant fs_read /work\n"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	if !slices.ContainsFunc(se.Findings, func(f oracle.Finding) bool { return f.Invariant == oracle.Confinement }) {
		t.Errorf("no confinement finding: %v", se.Findings)
	}
}
