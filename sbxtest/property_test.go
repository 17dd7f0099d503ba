package sbxtest

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// TestPropertyDraws: a thousand scenarios of seed 1 unless rapid's flags
// say otherwise; a fifth of them under -short.
func TestPropertyDraws(t *testing.T) {
	for _, tc := range []struct {
		reason string
		set    map[string]string
		short  bool
		checks int
		seed   uint64
	}{
		{"the defaults", nil, false, 1000, 1},
		{"-short draws a fifth", nil, true, 200, 1},
		{"-rapid.checks", map[string]string{"rapid.checks": "37"}, false, 37, 1},
		{"-rapid.seed", map[string]string{"rapid.seed": "9"}, false, 1000, 9},
		{"-rapid.seed=0 is rapid's random seed: the default stays", map[string]string{"rapid.seed": "0"}, false, 1000, 1},
		{"both, under -short", map[string]string{"rapid.checks": "50", "rapid.seed": "7"}, true, 10, 7},
		{"-rapid.checks=0 draws the default", map[string]string{"rapid.checks": "0"}, false, 1000, 1},
	} {
		setting := func(name, env string) (string, bool) {
			v, ok := tc.set[name]
			return v, ok
		}
		checks, seed := propertyDraws(setting, tc.short)
		if checks != tc.checks || seed != tc.seed {
			t.Errorf("%s: %d checks of seed %d, want %d of seed %d", tc.reason, checks, seed, tc.checks, tc.seed)
		}
	}
}

// TestPropertyDrawsAsAsked runs this test binary's TestPropertyChild with
// rapid's flags and reads what Property says it drew: the flags reach it.
func TestPropertyDrawsAsAsked(t *testing.T) {
	if os.Getenv("SBXTEST_PROPERTY_CHILD") != "" {
		t.Skip("in the child")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "passed 1000 scenarios of seed 1"},
		{[]string{"-rapid.checks=37"}, "passed 37 scenarios of seed 1"},
		{[]string{"-rapid.seed=9", "-test.short"}, "passed 200 scenarios of seed 9"},
	} {
		args := append([]string{"-test.run=^TestPropertyChild$", "-test.v"}, tc.args...)
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(withoutRapidEnv(), "SBXTEST_PROPERTY_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: %v, want a pass that says %q:\n%s", tc.args, err, tc.want, out)
		}
	}
}

// TestPropertyChild is Property on the reference, run by
// TestPropertyDrawsAsAsked in a child process.
func TestPropertyChild(t *testing.T) {
	if os.Getenv("SBXTEST_PROPERTY_CHILD") == "" {
		t.Skip("run by TestPropertyDrawsAsAsked")
	}
	Property(t, Sandbox{Name: "reference", Factory: core.ReferenceFactory})
}

// withoutRapidEnv is the environment without rapid's variables.
func withoutRapidEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RAPID_") {
			env = append(env, kv)
		}
	}
	return env
}

// TestCheckPropertyIsTheCampaign: Property fails at the first check of the
// seed that the oracle fails, as a campaign of that seed numbers its
// checks, with a minimized reproducer; on the reference it passes.
func TestCheckPropertyIsTheCampaign(t *testing.T) {
	for _, name := range []string{"raw-prefix", "no-latch", "resolve-twice"} {
		sb := mutant(t, name)
		first := -1
		for i := range 1000 {
			fs, err := oracle.Check(sb.Factory, generators.Generate(generators.NewSource(1, uint64(i))), new(oracle.Coverage), oracle.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) > 0 {
				first = i
				break
			}
		}
		if first < 0 {
			t.Fatalf("%s: no check of seed 1 below 1000 fails it", name)
		}
		err := checkProperty(sb, 1000, 1)
		var f *Failure
		if !errors.As(err, &f) {
			t.Fatalf("%s: checkProperty = %v, want a *Failure", name, err)
		}
		for _, want := range []string{"check " + strconv.Itoa(first) + " of seed 1 failed", "-rapid.seed=1", "minimized reproducer"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the failure does not say %q:\n%v", name, want, err)
			}
		}
		if err := checkProperty(sb, first, 1); err != nil {
			t.Errorf("%s: the checks before %d fail it: %v", name, first, err)
		}
	}
	if err := checkProperty(Sandbox{Factory: core.ReferenceFactory}, 1000, 1); err != nil {
		t.Errorf("the reference fails: %v", err)
	}
}
