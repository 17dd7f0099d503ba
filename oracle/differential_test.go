package oracle_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// The model is a second reading of the SPEC; these tests set it against
// the first (core) on generated scenarios, and show that a bug in the
// model's world would be caught.

const diffSeed = 0x6d6f64656c // "model"

func generated(i int) *scenario.Scenario {
	return generators.Generate(generators.NewSource(diffSeed, uint64(i)))
}

// TestCheckFindsNothingOnGenerated: the reference passes every invariant,
// verdict-matches-model included, on generated scenarios; some of them
// have clocks that pass 2^63−1, so the model and the reference must agree
// on SPEC §7 too.
func TestCheckFindsNothingOnGenerated(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 200
	}
	k := oracle.NewChecker(core.ReferenceFactory, oracle.Options{})
	defer k.Close()
	var cov oracle.Coverage
	pastTop := 0
	for i := range n {
		sc := generated(i)
		if _, ok := sc.World.Clock.At(int64(len(sc.Steps))); !ok {
			pastTop++
		}
		got, err := k.Check(sc, &cov)
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if len(got) > 0 {
			t.Fatalf("scenario %d (seed %#x): %v\n%s", i, diffSeed, got, sc.Format())
		}
	}
	if judge.Checked(&cov, oracle.VerdictMatchesModel) == 0 {
		t.Fatal("verdict-matches-model was never checked")
	}
	if pastTop == 0 {
		t.Fatalf("none of %d scenarios has a clock that passes 2^63−1", n)
	}
	t.Logf("%d scenarios, %d ops, %d with a clock past 2^63−1", n, cov.Ops, pastTop)
}

// worldDiff drives the harness's world (internal/refworld) and the model's
// world m, both from ws, through the same calls, and returns the first answer they disagree on
// ("" when none): the clock's first 40 ticks; then, in order, the world
// calls each op of ops implies (an fs op's realpath, then its effect),
// whether or not a grant would allow them, with every host also spelled
// with one and two trailing dots and in upper case; then every dns, route and granted host and the built-in names,
// resolved three times each and fetched on every routed path.
func worldDiff(ws scenario.WorldSpec, g core.GrantSpec, ops []core.Op, m oracle.WorldAnswers) string {
	ref := refworld.New(ws)
	for k := range 40 {
		rt, rok := ref.Now()
		mt, mok := m.Now()
		if rok != mok || rok && rt != mt {
			return fmt.Sprintf("clock %+v, read %d: core %d (ok %v), model %d (ok %v)", ws.Clock, k, rt, rok, mt, mok)
		}
	}
	var paths []string
	for _, r := range ws.Routes {
		paths = append(paths, r.Path)
	}
	resolve := func(h string) string {
		for _, v := range spellings(h) {
			if r, mm := ref.Resolve(v), m.Resolve(v); r != mm {
				return fmt.Sprintf("resolve %q: core %v, model %v", v, r, mm)
			}
		}
		return ""
	}
	fetch := func(h, p string) string {
		for _, v := range spellings(h) {
			rb, rok := ref.Route(v, p)
			mb, mok := m.Fetch(v, p)
			if rb != mb || rok != mok {
				return fmt.Sprintf("fetch %q %q: core %q (%v), model %q (%v)", v, p, rb, rok, mb, mok)
			}
		}
		return ""
	}
	for _, op := range ops {
		a := op.Args
		// The model reads and writes the path its realpath answered, as its
		// pipeline does; core's Read and Write follow the links themselves.
		var mr string
		var mok bool
		if (op.Kind == core.OpRead || op.Kind == core.OpWrite) && len(a) > 0 {
			rr, rok := ref.Realpath(a[0])
			mr, mok = m.Realpath(a[0])
			if rr != mr || rok != mok {
				return fmt.Sprintf("realpath %q: core %q (%v), model %q (%v)", a[0], rr, rok, mr, mok)
			}
		}
		switch {
		case op.Kind == core.OpRead && len(a) == 1:
			rd, rok := ref.Lookup(a[0])
			var md string
			var mdok bool
			if mok {
				md, mdok = m.Read(mr)
			}
			if rd != md || rok != mdok {
				return fmt.Sprintf("read %q: core %q (%v), model %q (%v)", a[0], rd, rok, md, mdok)
			}
		case op.Kind == core.OpWrite && len(a) == 2:
			ref.Write(a[0], a[1])
			if mok { // through a loop a write reaches nothing
				m.Write(mr, a[1])
			}
		case op.Kind == core.OpFetch && len(a) == 2:
			if d := resolve(a[0]); d != "" {
				return d
			}
			if d := fetch(a[0], a[1]); d != "" {
				return d
			}
		case op.Kind == core.OpTool && len(a) == 2:
			ro, rok := ref.ToolOutput(a[0], a[1])
			mo, mok := m.Call(a[0], a[1])
			if ro != mo || rok != mok {
				return fmt.Sprintf("call %q %q: core %q (%v), model %q (%v)", a[0], a[1], ro, rok, mo, mok)
			}
		}
	}
	hosts := []string{"localhost", "x.localhost", "metadata.google.internal", "metadata", "instance-data", "127.1", "0x7f000001", "[::1]", "a.test"}
	hosts = append(hosts, g.NetHosts...)
	for _, d := range ws.DNS {
		hosts = append(hosts, d.Host)
	}
	for _, r := range ws.Routes {
		hosts = append(hosts, r.Host)
	}
	for range 3 {
		for _, h := range hosts {
			if d := resolve(h); d != "" {
				return d
			}
		}
	}
	for _, h := range hosts {
		for _, p := range paths {
			if d := fetch(h, p); d != "" {
				return d
			}
		}
	}
	return ""
}

// spellings are the ways the resolver must treat alike or tell apart: the
// host, with one trailing dot more or less, with two, and in upper case.
func spellings(h string) []string {
	return []string{h, h + ".", h + "..", strings.TrimSuffix(h, "."), strings.ToUpper(h), strings.ToUpper(h) + "."}
}

// extraWorlds are hand-written worlds the generators may not draw: clocks
// at the edges of int64, dns lines and routes on names with two dots.
var extraWorlds = []scenario.WorldSpec{
	{Clock: scenario.TickClock{Start: 0, Step: 1<<63 - 1}},
	{Clock: scenario.TickClock{Start: 1<<63 - 1, Step: 0}},
	{Clock: scenario.TickClock{Start: 1<<63 - 1, Step: 1}},
	{Clock: scenario.TickClock{Start: 1<<63 - 3, Step: 1}},
	{Clock: scenario.TickClock{Start: -1 << 63, Step: 1<<63 - 1}},
	{Clock: scenario.TickClock{Start: 5, Step: -1 << 63}},
	{Clock: scenario.TickClock{Start: -1<<63 + 3, Step: -2}},
	{
		DNS: []scenario.DNSRecord{
			{Host: "two.test..", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("203.0.113.5")}},
			{Host: "Localhost.", Addrs: []netip.Addr{netip.MustParseAddr("198.51.100.1")}},
			{Host: "gone.test", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.2")}},
			{Host: "gone.test"},
		},
		Routes: []scenario.Route{{Host: "r.test..", Path: "/", Body: "two"}, {Host: "R.test.", Path: "/", Body: "one"}, {Host: "r.test", Path: "/", Body: "later"}},
	},
}

const diffScenarios = 2000

// TestModelWorldAgreesWithRefWorld: on generated worlds and the extra
// ones, the model's world answers every call as core's does.
func TestModelWorldAgreesWithRefWorld(t *testing.T) {
	for _, ws := range extraWorlds {
		if d := worldDiff(ws, core.GrantSpec{NetHosts: []string{"two.test", "r.test"}}, nil, oracle.NewModelWorld(ws)); d != "" {
			t.Errorf("extra world: %s", d)
		}
	}
	for i := range diffScenarios {
		sc := generated(i)
		if d := worldDiff(sc.World, sc.Grant, sc.Ops(), oracle.NewModelWorld(sc.World)); d != "" {
			t.Fatalf("scenario %d (seed %#x): %s", i, diffSeed, d)
		}
	}
}

// Model worlds with one bug each, as a careless second reading of the SPEC
// would have them.
type (
	// everyTrailingDot strips all trailing dots: "a.test.." becomes "a.test".
	everyTrailingDot struct{ oracle.WorldAnswers }
	// frozenClock saturates at 2^63−1 and calls it a tick: the bug both
	// core and the old model shared.
	frozenClock struct{ oracle.WorldAnswers }
	// noRebinding answers a name's first DNS answer forever.
	noRebinding struct {
		oracle.WorldAnswers
		first map[string]netip.Addr
	}
	// caseSensitiveRoutes matches route hosts byte for byte.
	caseSensitiveRoutes struct {
		oracle.WorldAnswers
		routes []scenario.Route
	}
)

func (w everyTrailingDot) Resolve(h string) netip.Addr {
	return w.WorldAnswers.Resolve(strings.TrimRight(h, ".") + ".")
}

func (w frozenClock) Now() (int64, bool) {
	t, ok := w.WorldAnswers.Now()
	if !ok {
		t = 1<<63 - 1
	}
	return t, true
}

func (w noRebinding) Resolve(h string) netip.Addr {
	if a, ok := w.first[h]; ok {
		return a
	}
	a := w.WorldAnswers.Resolve(h)
	w.first[h] = a
	return a
}

func (w caseSensitiveRoutes) Fetch(h, p string) (string, bool) {
	for i := len(w.routes) - 1; i >= 0; i-- {
		r := w.routes[i]
		if strings.TrimSuffix(r.Host, ".") == strings.TrimSuffix(h, ".") && r.Path == p {
			return r.Body, true
		}
	}
	return "", false
}

// TestWorldDiffCatchesModelBugs: each broken model world disagrees with
// core on some generated scenario, so worldDiff can fail.
func TestWorldDiffCatchesModelBugs(t *testing.T) {
	bugs := []struct {
		name  string
		world func(scenario.WorldSpec) oracle.WorldAnswers
	}{
		{"every trailing dot ignored", func(ws scenario.WorldSpec) oracle.WorldAnswers {
			return everyTrailingDot{oracle.NewModelWorld(ws)}
		}},
		{"clock frozen at 2^63−1", func(ws scenario.WorldSpec) oracle.WorldAnswers { return frozenClock{oracle.NewModelWorld(ws)} }},
		{"no rebinding", func(ws scenario.WorldSpec) oracle.WorldAnswers {
			return noRebinding{oracle.NewModelWorld(ws), map[string]netip.Addr{}}
		}},
		{"case-sensitive routes", func(ws scenario.WorldSpec) oracle.WorldAnswers {
			return caseSensitiveRoutes{oracle.NewModelWorld(ws), ws.Routes}
		}},
	}
	for _, bug := range bugs {
		t.Run(bug.name, func(t *testing.T) {
			for i := range diffScenarios {
				sc := generated(i)
				if d := worldDiff(sc.World, sc.Grant, sc.Ops(), bug.world(sc.World)); d != "" {
					t.Logf("caught at scenario %d: %s", i, d)
					return
				}
			}
			t.Fatalf("%d scenarios and no disagreement", diffScenarios)
		})
	}
}
