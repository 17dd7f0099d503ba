package dims_test

import (
	"io/fs"
	"path"
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/corpus"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestCountMatchesSlow: Count hits exactly the points the plain version
// in slow_test.go hits, scenario by scenario, over generated scenarios
// (with and without a prepared world, as campaigns and countDrawn call
// it) and the committed corpus; and so does counting while the oracle
// checks the scenario on the reference (Counting). One Counts counts them
// all, as a campaign worker's does, so state kept between calls is
// exercised too.
func TestCountMatchesSlow(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	var fast, slow, viaCheck dims.Counts
	check := func(name string, sc *scenario.Scenario, prepared bool) {
		t.Helper()
		g, err := core.NewGrant(sc.Grant)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var tmpl *refworld.Template
		if prepared {
			tmpl = refworld.Prepare(sc.World)
		}
		dims.Count(sc, g, tmpl, &fast)
		dims.CountSlow(sc, g, nil, &slow)
		if fs := judge.CheckInline(viaCheck.Counting(sc), judge.Case{Scenario: sc, Grant: g}, new(oracle.Coverage)); len(fs) > 0 {
			t.Fatalf("%s: the counting reference has findings: %v", name, fs)
		}
		for how, counts := range map[string]*dims.Counts{"Count": &fast, "counting in a check": &viaCheck} {
			if f, s := counts.Slice(), slow.Slice(); !slices.Equal(f, s) {
				for i, p := range dims.Catalog() {
					if f[i] != s[i] {
						t.Fatalf("%s (prepared=%v): %s: %s says %d hits so far, the slow version %d\n%s", name, prepared, p, how, f[i], s[i], sc.Format())
					}
				}
			}
		}
	}
	for _, seed := range []uint64{1, 2} {
		for i := range n {
			sc := generators.Generate(generators.NewSource(seed, uint64(i)))
			check("generated", sc, i%2 == 0)
		}
	}
	var files []string
	err := fs.WalkDir(corpus.Files, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(name) == ".sbx" {
			files = append(files, name)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	for _, name := range files {
		b, err := fs.ReadFile(corpus.Files, name)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Parse(name, b)
		if err != nil {
			t.Fatal(err)
		}
		check(name, sc, false)
	}
}
