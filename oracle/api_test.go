package oracle_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// TestInvariantsIsACopy: what a caller does to the catalogue it was handed
// changes nothing of the oracle's: the next call returns it intact, and
// every ID still names the invariant it did.
func TestInvariantsIsACopy(t *testing.T) {
	want := oracle.Invariants()
	names := make([]string, len(want))
	for i, inv := range want {
		names[i] = inv.ID.String()
	}
	got := oracle.Invariants()
	for i := range got {
		got[i] = oracle.Invariant{ID: oracle.Total, Name: "widened-by-caller"}
	}
	clear(got)
	if diff := cmp.Diff(want, oracle.Invariants()); diff != "" {
		t.Fatalf("the catalogue changed after a caller wrote into its copy (-before +after):\n%s", diff)
	}
	for i, inv := range want {
		if inv.ID.String() != names[i] {
			t.Errorf("ID %d names %q after the write, %q before", inv.ID, inv.ID.String(), names[i])
		}
	}
}

// TestCatalogueIsTheSpecs: the catalogue lists SPEC §8's invariants in its
// order, each ID in its place, and the package doc lists each of them.
func TestCatalogueIsTheSpecs(t *testing.T) {
	spec, err := os.ReadFile("../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(spec), "## 8. Invariants")
	section, _, _ = strings.Cut(section, "\n## ")
	var inSpec []string
	for _, line := range strings.Split(section, "\n") {
		if name, ok := strings.CutPrefix(line, "| `"); ok {
			name, _, _ = strings.Cut(name, "`")
			inSpec = append(inSpec, name)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var inCatalogue []string
	for i, inv := range oracle.Invariants() {
		if int(inv.ID) != i || inv.ID.String() != inv.Name {
			t.Errorf("entry %d is ID %d named %q, which says %q", i, inv.ID, inv.Name, inv.ID)
		}
		if !strings.Contains(string(doc), "//   - "+inv.Name+": ") {
			t.Errorf("the package doc does not list %s", inv.Name)
		}
		inCatalogue = append(inCatalogue, inv.Name)
	}
	if diff := cmp.Diff(inSpec, inCatalogue); diff != "" {
		t.Errorf("the catalogue is not SPEC §8's (-spec +catalogue):\n%s", diff)
	}
}

// TestCheckRejectsAnInvalidGrant: a scenario whose grant is invalid is not
// judged: Check and a Checker say why, with core's sentinel.
func TestCheckRejectsAnInvalidGrant(t *testing.T) {
	sc := generated(0)
	sc.Grant.Budgets.MaxOps = -1
	if fs, err := oracle.Check(core.ReferenceFactory, sc, nil, oracle.Options{}); !errors.Is(err, core.ErrInvalidGrant) || fs != nil {
		t.Errorf("Check = %v, %v; want no findings and an invalid grant", fs, err)
	}
	k := oracle.NewChecker(core.ReferenceFactory, oracle.Options{})
	defer k.Close()
	if fs, err := k.Check(sc, nil); !errors.Is(err, core.ErrInvalidGrant) || fs != nil {
		t.Errorf("Checker.Check = %v, %v; want no findings and an invalid grant", fs, err)
	}
}

// TestCheckRejectsAnUnknownClass: a scenario with a step of no attack
// class of package attack is not judged (its coverage has nowhere to
// go): Check and a Checker say so with ErrUnknownClass, and do not crash.
func TestCheckRejectsAnUnknownClass(t *testing.T) {
	sc := generated(0)
	sc.Steps[0].Class = attack.NumClasses + 3
	if fs, err := oracle.Check(core.ReferenceFactory, sc, nil, oracle.Options{}); !errors.Is(err, oracle.ErrUnknownClass) || fs != nil {
		t.Errorf("Check = %v, %v; want no findings and an unknown class", fs, err)
	}
	k := oracle.NewChecker(core.ReferenceFactory, oracle.Options{})
	defer k.Close()
	if fs, err := k.Check(sc, nil); !errors.Is(err, oracle.ErrUnknownClass) || !strings.Contains(fmt.Sprint(err), "step 1") {
		t.Errorf("Checker.Check = %v, %v; want no findings and an unknown class at step 1", fs, err)
	}
}

// TestCheckCountsAndFinds: Check counts into the coverage it is given (or
// into none), and finds what a Checker finds, on a mutant that fails.
func TestCheckCountsAndFinds(t *testing.T) {
	m := mutants.All()[0]
	k := oracle.NewChecker(m.Factory, oracle.Options{})
	defer k.Close()
	var viaCheck, viaChecker oracle.Coverage
	found := 0
	for i := range 20 {
		sc := generated(i)
		want, err := k.Check(sc, &viaChecker)
		if err != nil {
			t.Fatal(err)
		}
		got, err := oracle.Check(m.Factory, sc, &viaCheck, oracle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("scenario %d: Check found otherwise than a Checker (-checker +check):\n%s", i, diff)
		}
		if _, err := oracle.Check(m.Factory, sc, nil, oracle.Options{}); err != nil {
			t.Fatal(err)
		}
		found += len(got)
	}
	if diff := cmp.Diff(viaChecker, viaCheck); diff != "" {
		t.Errorf("Check counted otherwise than a Checker (-checker +check):\n%s", diff)
	}
	if viaCheck.Scenarios != 20 || viaCheck.Ops == 0 || found == 0 {
		t.Errorf("counted %d scenarios, %d ops, found %d; want 20 scenarios, some ops and findings on mutant %s",
			viaCheck.Scenarios, viaCheck.Ops, found, m.Name)
	}
}
