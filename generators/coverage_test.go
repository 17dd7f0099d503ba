package generators

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

var (
	seedFlag      = flag.Uint64("generators.seed", 1, "seed of the seeded-source tests")
	scenariosFlag = flag.Int("generators.scenarios", 3000, "scenarios the coverage test checks")
)

// everyOp are the invariants checked on every op (or every scenario): each
// must be checked for every class.
var everyOp = []oracle.ID{oracle.Confinement, oracle.VerdictMatchesModel, oracle.OutputBounded,
	oracle.Total, oracle.ReplayDeterministic, oracle.GrantImmutable, oracle.ChargeBeforeDispatch}

// TestCoverage checks seeded scenarios against the reference: no findings,
// every result kind occurs, every class has ops, and every invariant that
// applies to every op is checked for every class. It logs the invariant ×
// class cells that stayed at zero.
//
// Two workers share the streams, each with its own sources: under -race this
// also checks that generation shares no mutable state between goroutines.
func TestCoverage(t *testing.T) {
	const workers = 2
	seed := *seedFlag
	var covs [workers]oracle.Coverage
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < *scenariosFlag; i += workers {
				if !checkStream(t, seed, i, &covs[w]) {
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var cov oracle.Coverage
	for w := range covs {
		judge.Add(&cov, &covs[w])
	}
	t.Logf("seed %d: %d scenarios, %d ops", seed, cov.Scenarios, cov.Ops)
	var kinds [core.NumKinds]uint64
	for _, cl := range attack.All() {
		if judge.ClassOps(&cov, cl) == 0 {
			t.Errorf("class %s has no ops", cl)
		}
		for k := range kinds {
			kinds[k] += cov.Classes[cl].Kinds[k]
		}
	}
	for k := core.OK; k < core.NumKinds; k++ {
		if kinds[k] == 0 {
			t.Errorf("result kind %s never occurred", k)
		}
	}
	t.Logf("invariant × class cells never checked:\n%s", zeroCells(&cov))
	for _, id := range everyOp {
		for _, cl := range attack.All() {
			if cov.Classes[cl].Checked[id] == 0 {
				t.Errorf("%s was never checked for class %s", id, cl)
			}
		}
	}
	least, where := uint64(math.MaxUint64), ""
	for _, inv := range oracle.Invariants() {
		for _, cl := range attack.All() {
			n := cov.Classes[cl].Checked[inv.ID]
			switch {
			case structural[cell{inv.ID, cl}]:
			case n == 0:
				t.Errorf("%s was never checked for class %s, which can reach it", inv.ID, cl)
			case n < least:
				least, where = n, inv.Name+" × "+cl.String()
			}
		}
	}
	t.Logf("the least-checked reachable cell is %s: %d checks", where, least)
	t.Logf("result kinds × classes (classes with that kind):\n%s", kindMatrix(&cov))
}

type cell struct {
	id oracle.ID
	cl attack.Class
}

// structural are the invariant × class cells no op of the class can reach:
// no-internal-egress is checked only on net_fetch ops, and the tool classes
// call tools, unknown-op sends kinds that are none of the four, and the
// symlink classes read and write through the VFS's links.
var structural = map[cell]bool{
	{oracle.NoInternalEgress, attack.UnknownTool}:   true,
	{oracle.NoInternalEgress, attack.ToolVariant}:   true,
	{oracle.NoInternalEgress, attack.UnknownOp}:     true,
	{oracle.NoInternalEgress, attack.SymlinkEscape}: true,
	{oracle.NoInternalEgress, attack.SymlinkParent}: true,
	{oracle.NoInternalEgress, attack.SymlinkLoop}:   true,
}

// checkStream checks stream i of seed on the reference, counting into cov.
func checkStream(t *testing.T, seed uint64, i int, cov *oracle.Coverage) bool {
	sc := Generate(NewSource(seed, uint64(i)))
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Errorf("seed %d stream %d: invalid grant: %v", seed, i, err)
		return false
	}
	if fs := judge.CheckInline(core.ReferenceFactory, c, cov); len(fs) > 0 {
		t.Errorf("seed %d stream %d: the reference fails: %v\n%s", seed, i, fs[0], sc.Format())
		return false
	}
	return true
}

func zeroCells(cov *oracle.Coverage) string {
	var b strings.Builder
	for _, inv := range oracle.Invariants() {
		var zs []string
		for _, cl := range attack.All() {
			if cov.Classes[cl].Checked[inv.ID] == 0 {
				zs = append(zs, cl.String())
			}
		}
		if len(zs) > 0 {
			fmt.Fprintf(&b, "  %-24s %s\n", inv.Name, strings.Join(zs, ", "))
		}
	}
	if b.Len() == 0 {
		return "  none\n"
	}
	return b.String()
}

func kindMatrix(cov *oracle.Coverage) string {
	var b strings.Builder
	for k := core.OK; k < core.NumKinds; k++ {
		var missing []string
		n := 0
		for _, cl := range attack.All() {
			if cov.Classes[cl].Kinds[k] > 0 {
				n++
			} else {
				missing = append(missing, cl.String())
			}
		}
		fmt.Fprintf(&b, "  %-18s %2d classes; not: %s\n", k, n, strings.Join(missing, ", "))
	}
	return b.String()
}
