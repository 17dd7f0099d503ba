package fuzz

import (
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"pgregory.net/rapid"
)

// Property is the main rapid property — every scenario generators.Scenarios
// draws passes every invariant — on the sandbox SUT names. FuzzProperty
// runs it under the Go fuzzer through rapid.MakeFuzz (rapid does not
// shrink there; sbxfuzz minimize does, on the scenario).
func Property(t *rapid.T) {
	name, f, err := SUT()
	if err != nil {
		t.Fatalf("%v", err)
	}
	sc := generators.Scenarios().Draw(t, "scenario")
	c, err := sc.Case()
	if err != nil {
		t.Fatalf("generated an invalid grant: %v", err)
	}
	cov := coverages.Get().(*oracle.Coverage)
	fs := oracle.CheckInline(f, c, cov)
	coverages.Put(cov)
	if len(fs) > 0 {
		t.Fatalf("%d invariant violation(s) on %s, the first: %v", len(fs), name, fs[0])
	}
}
