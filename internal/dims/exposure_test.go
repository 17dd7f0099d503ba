package dims_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/dims"
	"github.com/sbxfuzz/sbxfuzz/internal/randscenario"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestDimensionMutantsOnlyTheirDimensionExposes audits mutants.Mutant.Dimension
// against the dimension table: a mutant that names a dimension must differ from
// the reference only on ops that hit a point of that dimension. Over
// generated scenarios and random ones, it runs each such mutant beside the
// reference, finds the first op where they differ (the result, the usage
// after it, or how many journal entries the world holds), and asks
// dims.Count which points that op hit — the counts over ops[:i+1] minus
// those over ops[:i]. One of them must be a point of the mutant's
// dimension other than the baseline points nearly every op hits (ASCII
// arguments, a budget below its cap, a clock ticking by 0 or 1), and, for
// a dimension mutant whose defect sits on known points (pointOf), one of
// those. A mutant exposed elsewhere is labelled with the wrong dimension,
// or the dimension's catalog lacks the point that exposes it: either way a
// campaign that hits every point of the dimension could still miss it.
// -short audits fewer scenarios.
func TestDimensionMutantsOnlyTheirDimensionExposes(t *testing.T) {
	generated, random := 3000, 5000
	if testing.Short() {
		generated, random = 500, 1000
	}
	type trial struct {
		what string // how to rebuild it
		sc   *scenario.Scenario
		g    core.Grant
	}
	var trials []trial
	for i := range generated {
		sc := generators.Generate(generators.NewSource(1, uint64(i)))
		g, err := core.NewGrant(sc.Grant)
		if err != nil {
			t.Fatalf("generated scenario (1, %d): %v", i, err)
		}
		trials = append(trials, trial{fmt.Sprintf("generators.Generate(generators.NewSource(1, %d))", i), sc, g})
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range random {
		g, ws, ops := randscenario.Draw(rng)
		sc := &scenario.Scenario{Grant: g.Spec(), World: ws}
		for _, op := range ops {
			sc.Steps = append(sc.Steps, scenario.Step{Op: op})
		}
		trials = append(trials, trial{fmt.Sprintf("randscenario.Draw #%d of rand.NewPCG(7, 7)", i), sc, g})
	}

	cat := dims.Catalog()
	checked := 0
	for _, m := range mutants.All() {
		if m.Dimension == "" {
			continue
		}
		checked++
		t.Run(m.Name, func(t *testing.T) {
			exposed, outside := 0, 0
			for _, tr := range trials {
				i := firstDiff(m, tr.g, tr.sc)
				if i < 0 {
					continue
				}
				exposed++
				hit := opPoints(tr.sc, tr.g, i)
				if exposes(cat, hit, m) {
					continue
				}
				if outside++; outside > 3 {
					continue // enough examples
				}
				var names []string
				for _, j := range hit {
					names = append(names, cat[j].String())
				}
				op := tr.sc.Steps[i].Op
				t.Errorf("%s: first differs from the reference at op %d (%s %s) of %s (grant %+v, clock %+v), which hits no %s point that exposes it; it hits %s",
					m.Name, i+1, op.Kind, shortArgs(op.Args), tr.what, tr.sc.Grant, tr.sc.World.Clock, m.Dimension, strings.Join(names, "; "))
			}
			if outside > 3 {
				t.Errorf("%s: %d exposures outside %s in all", m.Name, outside, m.Dimension)
			}
			if exposed == 0 {
				t.Errorf("%s: no scenario exposed it: the audit says nothing about it", m.Name)
			}
			t.Logf("%s (%s): exposed by %d of %d scenarios, %d outside its dimension", m.Name, m.Dimension, exposed, len(trials), outside)
		})
	}
	if checked == 0 {
		t.Fatal("no mutant names a dimension")
	}
}

// firstDiff is the index of the first op of sc after which mutant m and
// the reference differ in result, usage or journal length, each over its
// own world built from sc.World; -1 when they never do.
func firstDiff(m mutants.Mutant, g core.Grant, sc *scenario.Scenario) int {
	w1, w2 := refworld.New(sc.World), refworld.New(sc.World)
	ref := core.NewReference(g, w1)
	mut, err := m.Factory(g, w2)
	if err != nil {
		panic(fmt.Sprintf("mutant %s: %v", m.Name, err))
	}
	for i, st := range sc.Steps {
		r1, r2 := ref.Run(st.Op), mut.Run(st.Op)
		if r1 != r2 || ref.Usage() != mut.Usage() || w1.JournalLen() != w2.JournalLen() {
			return i
		}
	}
	return -1
}

// opPoints returns the Catalog indices of the points op i of sc hits: the
// points whose count over ops[:i+1] exceeds that over ops[:i].
func opPoints(sc *scenario.Scenario, g core.Grant, i int) []int {
	count := func(n int) []uint64 {
		pre := *sc
		pre.Steps = sc.Steps[:n:n]
		var c dims.Counts
		dims.Count(&pre, g, nil, &c)
		return c.Slice()
	}
	before, after := count(i), count(i+1)
	var out []int
	for j := range after {
		if after[j] > before[j] {
			out = append(out, j)
		}
	}
	sort.Ints(out)
	return out
}

// exposes reports whether the points hit hold one that exposes mutant m:
// a point of its dimension other than the baseline ones, and one pointOf
// names where it narrows m's points.
func exposes(cat []dims.Point, hit []int, m mutants.Mutant) bool {
	return slices.ContainsFunc(hit, func(j int) bool {
		p := cat[j]
		if p.Dim != m.Dimension || baseline[[2]string{p.Dim, p.Name}] {
			return false
		}
		return pointOf[m.Name] == nil || pointOf[m.Name](p)
	})
}

// pointOf narrows the audit, for dimension mutants whose defect sits on
// known points of their dimension, to those points: the dimension alone
// would let an op pass on any point of it (any budget at max int64, say,
// for off-by-one-ops).
var pointOf = map[string]func(dims.Point) bool{
	"off-by-one-ops": func(p dims.Point) bool { return p.Group == "max_ops" && p.Name == "exactly at" },
	"off-by-one-output": func(p dims.Point) bool {
		return p.Group == "max_output_bytes" && p.Name == "exactly at" || p.Dim == dims.BudgetPair && strings.Contains(p.Name, "output at")
	},
	"zero-means-unlimited":     func(p dims.Point) bool { return p.Dim == dims.Budget && p.Name == "0" },
	"budget-plus-one-overflow": func(p dims.Point) bool { return p.Dim == dims.Budget && p.Name == "max int64" },
	"output-in-runes":          func(p dims.Point) bool { return p.Group == "returned data" && strings.Contains(p.Name, "multi-byte") },
	"malformed-passthrough":    func(p dims.Point) bool { return p.Name == "NUL" || p.Name == "invalid UTF-8" },
	"host-case-fold":           func(p dims.Point) bool { return p.Name == "case variant" },
	"host-final-dots":          func(p dims.Point) bool { return p.Name == "trailing dot" || p.Name == "two trailing dots" },
	"ignores-clock-overflow":   func(p dims.Point) bool { return p.Name == "a tick past 2^63−1" },
	// the NAT64 prefixes' points: the /96's edges and the /48 inside the /32
	"nat64-prefix-32": func(p dims.Point) bool { return p.Group == "64:ff9b::/96" || p.Group == "64:ff9b:1::/48" },
	// 6to4's prefix, and the IPv4 ranges' points spelled in it
	"no-6to4-unmap": func(p dims.Point) bool { return p.Group == "2002::/16" || strings.HasSuffix(p.Name, ", 6to4") },
	// the local-use /48's own points
	"nat64-local-use-public": func(p dims.Point) bool { return p.Group == "64:ff9b:1::/48" },
	// the IPv4-compatible prefix, and the IPv4 ranges' points spelled in it
	"no-compatible-unmap": func(p dims.Point) bool { return p.Group == "::/96" || strings.HasSuffix(p.Name, ", v4-compatible") },
	// the root, spelled bare, with a slash or with dot segments that Clean
	// takes back to it
	"root-itself-denied": func(p dims.Point) bool {
		return p.Name == "the root itself" || p.Name == "the root with a slash" || p.Name == "dot segments"
	},
}

// baseline are the points nearly every op hits, whatever it probes: the
// op's ASCII arguments, each budget below its cap, a clock ticking by 0 or
// 1. Hitting them says nothing about the op, so they count for no
// dimension here (else every op would be in the bytes, budget and clock
// dimensions, and the audit could not fail for their mutants).
var baseline = map[[2]string]bool{
	{dims.Bytes, "ASCII"}:  true,
	{dims.Budget, "below"}: true,
	{dims.Clock, "step 0"}: true,
	{dims.Clock, "step 1"}: true,
}

// shortArgs quotes args, each cut to 40 bytes.
func shortArgs(args []string) string {
	var out []string
	for _, a := range args {
		if len(a) > 40 {
			a = fmt.Sprintf("%s…(%d bytes)", a[:40], len(a))
		}
		out = append(out, fmt.Sprintf("%q", a))
	}
	return strings.Join(out, " ")
}

// TestMutantDimensionsAreTheTables: the dimensions a mutant may name are
// the table's, in its order.
func TestMutantDimensionsAreTheTables(t *testing.T) {
	if diff := cmp.Diff(dims.IDs, mutants.Dimensions()); diff != "" {
		t.Errorf("mutants.Dimensions() is not dims.IDs (-dims +got):\n%s", diff)
	}
}
